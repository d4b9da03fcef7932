/**
 * The page's recipes: every recipe the form can compose is one the library's recipe codec
 * accepts and the browser can run, and the page's games are the environments' own.
 */
import { AlfWorld } from '@mtrl/env-alfworld'
import { Registration as TwRegistration } from '@mtrl/env-textworld'
import { EnvConfig, Recipe } from '@mtrl/recipe'
import { GuessEnv } from '@mtrl/testing'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { alfWorld, alfWorldTaskTypes, dialRanges, dialsOf, label, presetChoices, settingName, textWorld } from '../src/ui/environments.js'
import { envKinds } from '../src/worker/envKinds.js'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { algorithms, browserSafe, compose, fitGroups, modelSizes, presetNames, presets, shippedBasePath, type RecipeFields } from '../src/ui/recipes.js'

const dials = fc.record({
  rooms: fc.integer({ min: dialRanges.rooms[0], max: dialRanges.rooms[1] }),
  objects: fc.integer({ min: dialRanges.objects[0], max: dialRanges.objects[1] }),
  quest: fc.integer({ min: dialRanges.quest[0], max: dialRanges.quest[1] })
})

const fields: fc.Arbitrary<RecipeFields> = fc.record({
  model: fc.constantFrom(...modelSizes),
  sft: fc.record({
    episodes: fc.integer({ min: 0, max: 2000 }),
    epochs: fc.integer({ min: 1, max: 8 }),
    batchSize: fc.integer({ min: 1, max: 16 }),
    learningRate: fc.double({ min: 1e-5, max: 1e-2, noNaN: true })
  }),
  rl: fc.record({
    iterations: fc.integer({ min: 1, max: 50 }),
    algorithm: fc.constantFrom(...algorithms),
    seedsPerIteration: fc.integer({ min: 1, max: 32 }),
    groupSize: fc.integer({ min: 1, max: 8 })
  }),
  evalEpisodes: fc.integer({ min: 1, max: 200 }),
  evalBeforeTraining: fc.boolean()
})

const decodes = (json: unknown): Recipe.Resolved => {
  const decoded = Recipe.decode(json)
  if (E.isLeft(decoded)) throw new Error(decoded.left)
  return decoded.right
}

describe('the page recipes', () => {
  it('composes, for any game, model, stages and algorithm, a recipe the codec accepts, on one thread, evaluated on its game', () => {
    fc.assert(
      fc.property(dials, fields, fc.boolean(), fc.constantFrom(...presetNames), (d, f, alf, preset) => {
        const env = alf ? alfWorld(alfWorldTaskTypes.slice(0, 2)) : textWorld(settingName(d))
        const rl = fitGroups(f.rl)
        const recipe = decodes(browserSafe(compose(preset, { ...f, rl }, env)))
        expect(recipe.model.kind).toBe(f.model === 'base' ? 'base' : 'scratch')
        expect(recipe.stages.map((s) => s.kind)).toEqual([...(f.sft.episodes > 0 ? ['sft'] : []), 'rl'])
        const envOf = (stage: Recipe.Stage): unknown => ('env' in stage ? stage.env : undefined)
        const decodedEnv = envOf(decodes({ name: 'x', stages: [{ kind: 'rl', env, iterations: 1 }] }).stages[0]!)
        for (const stage of recipe.stages) {
          expect('replicas' in stage ? stage.replicas : 1).toBe(1)
          expect(envOf(stage)).toEqual(decodedEnv)
        }
        expect(recipe.eval.episodes).toBe(f.evalEpisodes)
      }),
      { numRuns: 60 }
    )
  })

  it('gives grouped algorithms (all but PPO and REINFORCE++) groups of at least 2, keeping about the same episodes per iteration', () => {
    fc.assert(
      fc.property(fields, (f) => {
        const rl = fitGroups(f.rl)
        if (rl.algorithm !== 'ppo' && rl.algorithm !== 'reinforce++') expect(rl.groupSize).toBeGreaterThanOrEqual(2)
        else expect(rl).toEqual(f.rl)
        if (f.rl.groupSize >= 2) expect(rl).toEqual(f.rl)
        // about the same episodes per iteration: within 2, or one group of 4 when there were fewer than 4
        const [before, after] = [f.rl.seedsPerIteration * f.rl.groupSize, rl.seedsPerIteration * rl.groupSize]
        if (before < 4 && after !== before) expect(after).toBe(4)
        else expect(Math.abs(after - before)).toBeLessThanOrEqual(2)
      }),
      { numRuns: 500 }
    )
  })

  it('makes any recipe one the browser runs: replicas 1, no rollout threads, no playing ahead, no scale-out, the rest as it was', () => {
    const recipe = {
      name: 'n',
      scaleOut: { workers: 2 },
      stages: [
        { kind: 'sft', replicas: 2, episodes: 10 },
        { kind: 'rl', rolloutThreads: 2, maxStaleness: 1, iterations: 3 }
      ]
    }
    expect(browserSafe(recipe)).toEqual({
      name: 'n',
      stages: [
        { kind: 'sft', replicas: 1, episodes: 10 },
        { kind: 'rl', replicas: 1, iterations: 3 }
      ]
    })
    expect(browserSafe('not a recipe')).toBe('not a recipe')
  })

  it('keeps the shipped recipe as the default preset: its SFT and RL budgets, its model', () => {
    const recipe = decodes(compose('default', presets.default, textWorld('w2-o3-q4')))
    expect(recipe.stages[0]).toMatchObject({ kind: 'sft', episodes: 1500, epochs: 5, batchSize: 4 })
    expect(recipe.stages[1]).toMatchObject({ kind: 'rl', iterations: 6, algorithm: 'ppo' })
    expect(recipe.model).toMatchObject({ kind: 'scratch', dModel: 128, layers: 2, heads: 8 })
  })

  it('starts the base preset from the shipped base with the paper-base recipes: their SFT and RL stages, the layout the base learnt', () => {
    const paperBase = (name: string): { readonly stages: ReadonlyArray<Record<string, unknown>>; readonly rollout: unknown } =>
      JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'recipes', 'paper-base', name), 'utf8'))
    const [sft, rl] = [paperBase('few-demos-from-base.json').stages[0]!, paperBase('lift-from-base.json').stages[0]!]
    const recipe = decodes(browserSafe(compose('base', presets.base, textWorld('w2-o3-q4'))))
    expect(recipe.model).toEqual({ kind: 'base', path: shippedBasePath })
    expect(recipe.stages[0]).toMatchObject({ kind: 'sft', episodes: 60, epochs: 10, learningRate: sft['learningRate'], contextWeight: sft['contextWeight'] })
    expect(recipe.stages[1]).toMatchObject({
      kind: 'rl',
      algorithm: 'reinforce++',
      iterations: 40,
      budget: rl['budget'],
      reward: rl['reward'],
      policy: rl['policy']
    })
    expect(recipe.rollout).toMatchObject(paperBase('lift-from-base.json').rollout as object)
  })

  it("names the games the environments have: TextWorld's dials round-trip, ALFWorld's task types are its own", () => {
    fc.assert(
      fc.property(dials, (d) => {
        expect(dialsOf(settingName(d))).toEqual(d)
      })
    )
    for (const name of TwRegistration.presets) expect(settingName(dialsOf(name)!)).toBe(name)
    expect([...alfWorldTaskTypes].sort()).toEqual([...AlfWorld.defaults.taskTypes].sort())
  })

  it("offers the registry's kinds with a page entry, a toy registered in the worker included (GuessEnv: no edit in the page); its presets compose recipes the codec accepts", () => {
    expect(envKinds(EnvConfig.entries()).map((k) => k.kind)).toEqual(['textworld', 'alfworld'])
    EnvConfig.register(GuessEnv.entry)
    const kinds = envKinds(EnvConfig.entries())
    expect(kinds.map((k) => [k.kind, k.label])).toEqual([
      ['textworld', 'TextWorld'],
      ['alfworld', 'ALFWorld'],
      ['guess', 'Guess a number']
    ])
    const choices = presetChoices(kinds)
    expect(choices.filter((c) => c.env.kind === 'guess').map((c) => [c.text, label(c.env)])).toEqual([
      ['guess 1 to 16', 'guess {"high":16}'],
      ['guess 1 to 100', 'guess {"high":100}']
    ])
    expect(choices.find((c) => c.value === 'textworld:0')?.env).toEqual(textWorld('w2-o3-q4'))
    const labels = choices.map((choice) => {
      const decoded = Recipe.decode(compose('quick', presets.quick, choice.env))
      if (E.isLeft(decoded)) throw new Error(decoded.left)
      return decoded.right.eval.envs.map(EnvConfig.label).join()
    })
    expect(labels).toEqual([...TwRegistration.presets.map((name) => `textworld/${name}`), 'alfworld/train', 'guess/16', 'guess/100'])
  })
})
