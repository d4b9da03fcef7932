/**
 * The page on WebGPU in headless Chromium (SwiftShader's Vulkan on a machine without a GPU, the
 * GPU's adapter on one with): it names the adapter it runs on, its check against the cpu
 * backend passes (the parity checks of training and sampling that the Node suite runs on Dawn:
 * logits and log-probs, policy-loss gradients and an Adam step, KV-cached decoding against the
 * full forward pass), and it trains a small recipe (SFT steps, an RL iteration) on WebGPU.
 */
import { Services } from '@mtrl/testing'
import type { BackendParity } from '@mtrl/trainer-rl'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { open, serve } from './support/served.js'

interface PageState {
  readonly status: string
  readonly points: Readonly<Record<string, number>>
  readonly lines: ReadonlyArray<string>
  readonly records: ReadonlyArray<Readonly<Record<string, unknown>>>
  readonly backend?: { readonly name: string; readonly detail: string }
  readonly parity?: { readonly backend: string; readonly measures: ReadonlyArray<BackendParity.Measure>; readonly leaked: number }
}

const pageState = (page: Page): Promise<PageState> => page.evaluate(() => (window as unknown as { mtrlPage: PageState }).mtrlPage)

describe.runIf(Services.available('chromium'))(`the page on WebGPU in headless Chromium ${Services.tag('chromium')}`, () => {
  let served: Awaited<ReturnType<typeof serve>>
  let browser: Browser
  let page: Page
  let errors: string[]

  beforeAll(async () => {
    served = await serve()
    ;({ browser, page, errors } = await open(`${served.url}?backend=webgpu`, { webgpu: true }))
    await page.waitForFunction(() => (window as unknown as { mtrlPage?: PageState }).mtrlPage?.backend !== undefined, null, { timeout: 60_000 })
  })
  afterAll(async () => {
    await browser?.close()
    await served?.close()
  })

  it('runs on WebGPU and names the adapter the browser gives', async () => {
    const { backend } = await pageState(page)
    const adapter = await page.evaluate(async () => {
      const found = await (
        navigator as unknown as { gpu: { requestAdapter: () => Promise<{ info: { vendor: string; architecture: string } } | null> } }
      ).gpu.requestAdapter()
      return found === null ? undefined : { vendor: found.info.vendor, architecture: found.info.architecture }
    })
    expect(adapter, 'headless Chromium gave no WebGPU adapter').toBeDefined()
    expect(backend?.name, backend?.detail).toBe('webgpu')
    expect(backend?.detail).toContain(`WebGPU ${adapter!.vendor} ${adapter!.architecture}`)
    expect(await page.textContent('#backend')).toContain(`webgpu: WebGPU ${adapter!.vendor}`)
  })

  it('matches the cpu backend on the parity checks, leaving no tensor behind', async () => {
    await page.click('#backend-check')
    await page.waitForFunction(() => (window as unknown as { mtrlPage: PageState }).mtrlPage.parity !== undefined, null, { timeout: 120_000 })
    const { parity } = await pageState(page)
    expect(parity!.backend).toBe('webgpu')
    expect(new Set(parity!.measures.map((m) => m.check))).toEqual(new Set(['forward', 'update', 'decoding']))
    for (const m of parity!.measures) expect(m.error, `${m.check}: ${m.name}`).toBeLessThanOrEqual(m.tolerance)
    expect(parity!.leaked).toBe(0)
    expect(await page.getAttribute('#backend-parity', 'data-passed')).toBe('true')
    expect(await page.textContent('#backend-parity')).toMatch(/webgpu matches cpu: (\d+) of \1 measures within tolerance/)
  })

  it('trains a small recipe on WebGPU: an SFT step, then an RL iteration', async () => {
    await page.selectOption('#recipe-preset', 'quick')
    const composed = JSON.parse(await page.inputValue('#recipe-json')) as {
      model: Record<string, unknown>
      rollout: Record<string, unknown>
      stages: Array<Record<string, unknown>>
      eval: Record<string, unknown>
    }
    // the quick preset cut to seconds on a software adapter: a tiny model, the smallest game, two demonstrations, one group of two
    const env = { kind: 'textworld', settings: 'w1-o2-q2' }
    const [sft, rl] = composed.stages
    const tiny = {
      ...composed,
      model: { ...composed.model, dModel: 16, layers: 1, heads: 2, maxLen: 192, corpusEpisodes: 2 },
      rollout: { ...composed.rollout, maxNewTokens: 4, maxTurns: 2 },
      stages: [
        { ...sft, env, episodes: 2, epochs: 1, batchSize: 2, heldOutFraction: 0 },
        { ...rl, env, iterations: 1, budget: { seedsPerIteration: 1, groupSize: 2 } }
      ],
      eval: { ...composed.eval, envs: [env], episodes: 1, batch: 1 }
    }
    await page.fill('#recipe-json', JSON.stringify(tiny))
    await page.click('#train')
    await page.waitForFunction(() => ['finished', 'failed'].includes((window as unknown as { mtrlPage: PageState }).mtrlPage.status), null, {
      timeout: 240_000
    })
    const state = await pageState(page)
    expect(state.status, state.lines.slice(-5).join('\n')).toBe('finished')
    const sftSteps = state.records.filter((r) => r['kind'] === 'sft')
    const iterations = state.records.filter((r) => r['kind'] === 'rl')
    expect(sftSteps).toHaveLength(1)
    expect(iterations).toHaveLength(1)
    // a loss near log(vocab) from a fresh model, a finite gradient: not the zeros of a broken read
    expect(sftSteps[0]!['loss/sft']).toBeGreaterThan(1)
    expect(sftSteps[0]!['grad/norm']).toBeGreaterThan(0)
    expect(Number.isFinite(iterations[0]!['entropy/mean'])).toBe(true)
  })

  it('has written no error to the console', () => {
    expect(errors).toEqual([])
  })
})
