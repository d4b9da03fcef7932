/**
 * `npm run bench -w @mtrl/web`: SFT and RL tokens/s of the same recipe in headless Chromium (the
 * page's worker, on the page's best backend) and in Node (wasm), and their ratio.
 * BACKEND=wasm|webgl|webgpu|auto picks the page's backend (default auto).
 */
import { readFileSync } from 'node:fs'
import { inNode, inPage, speeds } from './browserRun.js'

// read, not imported: tsx turns a JSON module's `eval` key into a variable named eval
const defaultRecipe = JSON.parse(readFileSync(new URL('../../../recipes/default.json', import.meta.url), 'utf8')) as {
  stages: ReadonlyArray<Record<string, unknown>>
} & Record<string, unknown>

const stages = defaultRecipe.stages
const recipe = {
  ...defaultRecipe,
  name: 'web-speed',
  evalBeforeTraining: false,
  evalAfterEachStage: false,
  stages: [
    { ...stages[0], episodes: 200, epochs: 1, replicas: 1 },
    { ...stages[1], iterations: 3 }
  ],
  eval: { episodes: 10, batch: 10, envs: [{ kind: 'textworld', settings: 'w2-o3-q4' }] }
}

const page = await inPage(recipe, process.env['BACKEND'] ?? 'auto')
const node = await inNode(recipe)
const [p, n] = [speeds(page), speeds(node)]
const row = (name: string, a: number, b: number): string => `| ${name} | ${a.toFixed(0)} | ${b.toFixed(0)} | x${(a / b).toFixed(2)} |`
console.log(`recipe: the default model; SFT 200 episodes x 1 epoch (batch 4, one replica); 3 PPO iterations of 16 episodes`)
console.log(`page: ${page.backend}; Node: ${node.backend}`)
console.log('| tokens/s | headless Chromium | Node | browser / Node |')
console.log('|---|---|---|---|')
console.log(row('SFT', p.sft, n.sft))
console.log(row('RL rollout', p.rollout, n.rollout))
console.log(row('RL update', p.update, n.update))
console.log(`wall: page ${page.seconds.toFixed(1)} s, Node ${node.seconds.toFixed(1)} s`)
