/**
 * The page in a real browser (headless Chromium): it loads without console errors on the
 * backend it reports, trains a small recipe with the library's pipeline in its worker and draws
 * the curves, shows an episode's tokens with masks that match the trajectory, lets a human move
 * change the game, and plays a checkpoint saved in Node with the same greedy actions as Node.
 */
import { Agent } from '@mtrl/policy'
import { EnvConfig, Model, Recipe } from '@mtrl/recipe'
import { Services, TestBackend } from '@mtrl/testing'
import * as E from 'fp-ts/lib/Either.js'
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { evaluate } from '../src/worker/evaluate.js'
import type { Evaluation, GameState, Inspection } from '../src/worker/protocol.js'
import { open, root, serve } from './support/served.js'

interface PageState {
  readonly status: string
  readonly points: Readonly<Record<string, number>>
  readonly evaluations: ReadonlyArray<Evaluation>
  readonly lastGame?: GameState
  readonly lastInspection?: Inspection
  readonly backend?: { readonly name: string; readonly detail: string; readonly crossOriginIsolated: boolean }
  readonly lines: ReadonlyArray<string>
}

const pageState = (page: Page): Promise<PageState> => page.evaluate(() => (window as unknown as { mtrlPage: PageState }).mtrlPage)

const game = { kind: 'textworld', settings: 'w2-o3-q4' } as const

describe.runIf(Services.available('chromium'))(`the page in headless Chromium ${Services.tag('chromium')}`, () => {
  let served: Awaited<ReturnType<typeof serve>>
  let browser: Browser
  let page: Page
  let errors: string[]
  const work = mkdtempSync(join(tmpdir(), 'mtrl-web-'))

  beforeAll(async () => {
    served = await serve()
    ;({ browser, page, errors } = await open(`${served.url}?backend=wasm`))
    await page.waitForFunction(() => (window as unknown as { mtrlPage?: PageState }).mtrlPage?.backend !== undefined, null, { timeout: 60_000 })
  })
  afterAll(async () => {
    await browser?.close()
    await served?.close()
    rmSync(work, { recursive: true, force: true })
  })

  it('reports its backend: WebAssembly with SIMD and threads, the page cross-origin isolated', async () => {
    const { backend } = await pageState(page)
    expect(backend?.name).toBe('wasm')
    expect(backend?.crossOriginIsolated).toBe(true)
    expect(backend?.detail).toMatch(/SIMD on, \d+ threads/)
    expect(await page.textContent('#backend')).toContain('wasm')
  })

  it('trains the quick recipe (SFT steps, RL iterations) in its worker and draws every curve', async () => {
    await page.selectOption('#recipe-preset', 'quick')
    await page.click('#train')
    await page.waitForFunction(() => ['finished', 'failed'].includes((window as unknown as { mtrlPage: PageState }).mtrlPage.status), null, {
      timeout: 240_000
    })
    const state = await pageState(page)
    expect(state.status).toBe('finished')
    for (const chart of ['loss', 'success', 'invalid', 'eval']) expect(state.points[chart], chart).toBeGreaterThan(0)
    expect(await page.textContent('#agent')).toMatch(/stage/)
  })

  it('inspects a group: action tokens and only they are masked in, GRPO advantages sum to zero over the group', async () => {
    await page.fill('#inspect-group', '4')
    await page.selectOption('#inspect-estimator', 'grpo')
    await page.click('#inspect-run')
    await page.waitForFunction(() => (window as unknown as { mtrlPage: PageState }).mtrlPage.lastInspection !== undefined, null, { timeout: 60_000 })
    const { lastInspection } = await pageState(page)
    expect(lastInspection!.episodes).toHaveLength(4)
    const perEpisode = lastInspection!.episodes.map((episode) => {
      for (const token of episode.tokens) expect(token.mask).toBe(token.kind === 'action')
      const masked = episode.tokens.filter((t) => t.mask)
      expect(masked.length).toBeGreaterThan(0)
      // outcome advantages: one number per episode, on every masked token; a finite log-prob on each
      for (const t of masked) {
        expect(t.advantage).toBeCloseTo(masked[0]!.advantage!, 5)
        expect(t.logprob).toBeLessThanOrEqual(0)
      }
      // the actions the turns record are the action tokens' turns
      expect(new Set(masked.map((t) => t.turn)).size).toBe(episode.turns.length)
      return masked[0]!.advantage!
    })
    expect(perEpisode.reduce((a, b) => a + b, 0)).toBeCloseTo(0, 4)
    const spans = await page.$$eval('#inspect-episode .token[data-mask="1"]', (nodes) => nodes.length)
    expect(spans).toBeGreaterThan(0)
  })

  it('applies a human move to the game, and the agent moves on from it', async () => {
    await page.fill('#play-seed', '7')
    await page.click('#play-start')
    await page.waitForFunction(() => (window as unknown as { mtrlPage: PageState }).mtrlPage.lastGame?.seed === 7, null, { timeout: 30_000 })
    const before = (await pageState(page)).lastGame!
    const command = before.admissible.find((c) => c.startsWith('go ')) ?? before.admissible[0]!
    await page.fill('#play-input', command)
    await page.press('#play-input', 'Enter')
    await page.waitForFunction(() => (window as unknown as { mtrlPage: PageState }).mtrlPage.lastGame?.moves.length === 1, null, { timeout: 30_000 })
    const after = (await pageState(page)).lastGame!
    expect(after.moves[0]).toMatchObject({ by: 'human', command, valid: true })
    expect(after.turnsLeft).toBe(before.turnsLeft - 1)
    await page.click('#play-agent')
    await page.waitForFunction(() => (window as unknown as { mtrlPage: PageState }).mtrlPage.lastGame?.moves.length === 2, null, { timeout: 30_000 })
    expect((await pageState(page)).lastGame!.moves[1]!.by).toBe('agent')
  })

  it('plays a checkpoint saved in Node with the same greedy actions as Node, seed for seed', async () => {
    await TestBackend.use('wasm')
    const recipe = Recipe.decode({
      name: 'node',
      seed: 3,
      model: { kind: 'scratch', dModel: 32, layers: 1, heads: 4, maxLen: 512, corpusEpisodes: 20 },
      stages: [{ kind: 'sft', env: game, episodes: 4 }]
    })
    if (E.isLeft(recipe) || recipe.right.model.kind !== 'scratch') throw new Error('recipe')
    const stage = recipe.right.stages[0]!
    if (stage.kind !== 'sft') throw new Error('recipe')
    const env = stage.env
    const agent = await Model.scratch(recipe.right.model, [EnvConfig.source(env)], 3)()
    if (E.isLeft(agent)) throw new Error(agent.left.message)
    const dir = join(work, 'checkpoint')
    mkdirSync(work, { recursive: true })
    expect(E.isRight(await Agent.save(dir, agent.right, { stage: 0 })())).toBe(true)
    const target = { env: game, episodes: 6, split: 'validation' as const, rollout: { systemPrompt: '', maxNewTokens: 10, temperature: 0.7 } }
    const inNode = await evaluate(agent.right, target)
    agent.right.dispose()
    if (E.isLeft(inNode)) throw new Error(inNode.left)
    await page.setInputFiles(
      '#load-input',
      readdirSync(dir).map((name) => join(dir, name))
    )
    await page.waitForFunction(() => document.querySelector('#agent')?.textContent?.includes('loaded') === true, null, { timeout: 30_000 })
    await page.fill('#eval-episodes', '6')
    await page.selectOption('#eval-split', 'validation')
    const count = (await pageState(page)).evaluations.length
    await page.click('#eval-run')
    await page.waitForFunction((n) => (window as unknown as { mtrlPage: PageState }).mtrlPage.evaluations.length > n, count, { timeout: 60_000 })
    const inPage = (await pageState(page)).evaluations.at(-1)!
    expect(inPage.episodes.map((e) => e.seed)).toEqual(inNode.right.episodes.map((e) => e.seed))
    expect(inPage.episodes.map((e) => e.actions)).toEqual(inNode.right.episodes.map((e) => e.actions))
    expect(inNode.right.episodes.flatMap((e) => e.actions).length).toBeGreaterThan(0)
  })

  it('trains from the shipped base (models/base, fetched with the page): its weights and tokenizer, not a new model', async () => {
    await page.selectOption('#recipe-preset', 'base')
    const composed = JSON.parse(await page.inputValue('#recipe-json')) as { stages: Array<Record<string, unknown>>; eval: Record<string, unknown> }
    expect(composed).toMatchObject({ model: { kind: 'base', path: '/models/base' } })
    // the preset's recipe, its budget cut to a few seconds
    const [sft, rl] = composed.stages
    const small = {
      ...composed,
      stages: [
        { ...sft, episodes: 4, epochs: 1, warmupSteps: 1 },
        { ...rl, iterations: 1, budget: { seedsPerIteration: 4, groupSize: 1 } }
      ],
      eval: { ...composed.eval, episodes: 4, batch: 4 }
    }
    await page.fill('#recipe-json', JSON.stringify(small))
    const before = (await pageState(page)).lines.length
    await page.click('#train')
    // the worker says 'training' after the click, and the status is still the last run's 'finished'
    // until then: wait for this run's lines (they come after its 'training') and then its end
    await page.waitForFunction(
      (n) => {
        const { mtrlPage } = window as unknown as { mtrlPage: PageState }
        return mtrlPage.lines.length > n && ['finished', 'failed'].includes(mtrlPage.status)
      },
      before,
      { timeout: 240_000 }
    )
    const state = await pageState(page)
    expect(state.status, state.lines.slice(-5).join('\n')).toBe('finished')
    // the shipped base's size and its tokenizer's 752 words (a model from scratch gets the demonstrations' words)
    expect(state.lines.slice(before).join('\n')).toMatch(/model: 2 layers, d 128, vocab 752, context 512/)
  })

  it('has written no error to the console', async () => {
    // `npm run screenshot -w @mtrl/web` writes the README's (MTRL_SCREENSHOT)
    await page.screenshot({ path: process.env['MTRL_SCREENSHOT'] ?? join(root, '..', '..', 'tmp', 'test-results', 'web-page.png'), fullPage: false })
    expect(errors).toEqual([])
  })
})
