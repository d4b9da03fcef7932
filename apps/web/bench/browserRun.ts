/**
 * A recipe run in the page (headless Chromium, the built page served as `npm run web` serves it)
 * or in Node (the same pipeline on the wasm backend), with its reporter lines and metric records.
 */
import { Backend } from '@mtrl/backend'
import { RunDir } from '@mtrl/experiment'
import { Pipeline, Recipe } from '@mtrl/recipe'
import * as E from 'fp-ts/lib/Either.js'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { open, serve } from '../test/support/served.js'

export interface Ran {
  readonly where: string
  readonly backend: string
  readonly seconds: number
  readonly lines: ReadonlyArray<string>
  readonly records: ReadonlyArray<Readonly<Record<string, unknown>>>
}

interface PageState {
  readonly status: string
  readonly records: ReadonlyArray<Readonly<Record<string, unknown>>>
  readonly lines: ReadonlyArray<string>
  readonly backend?: { readonly name: string; readonly detail: string }
}

/** Runs `recipe` in the page on `backend` (default the page's `auto`), up to `timeoutS` seconds. */
export const inPage = async (recipe: unknown, backend = 'auto', timeoutS = 3600): Promise<Ran> => {
  const served = await serve()
  const { browser, page, errors } = await open(`${served.url}?backend=${backend}`, { webgpu: backend === 'webgpu' })
  try {
    await page.waitForFunction(() => (window as unknown as { mtrlPage?: PageState }).mtrlPage?.backend !== undefined, null, { timeout: 60_000 })
    await page.fill('#recipe-json', JSON.stringify(recipe, null, 2))
    const t0 = performance.now()
    await page.click('#train')
    await page.waitForFunction(() => ['finished', 'failed'].includes((window as unknown as { mtrlPage: PageState }).mtrlPage.status), null, {
      timeout: timeoutS * 1000,
      polling: 1000
    })
    const seconds = (performance.now() - t0) / 1000
    const state = await page.evaluate(() => (window as unknown as { mtrlPage: PageState }).mtrlPage)
    if (state.status !== 'finished') throw new Error(`the page's run failed: ${state.lines.slice(-5).join('\n')}`)
    if (errors.length > 0) console.warn(`console errors: ${errors.join('; ')}`)
    const b = state.backend!
    return { where: 'headless Chromium', backend: `${b.name} (${b.detail})`, seconds, lines: state.lines, records: state.records }
  } finally {
    await browser.close()
    await served.close()
  }
}

/** Runs `recipe` in Node on the wasm backend (as `MTRL_BACKEND=wasm mtrl train`, without replicas' threads when the recipe has none). */
export const inNode = async (recipe: unknown): Promise<Ran> => {
  const selected = await Backend.select('wasm')()
  if (E.isLeft(selected)) throw new Error(Backend.message(selected.left))
  const decoded = Recipe.decode(recipe)
  if (E.isLeft(decoded)) throw new Error(decoded.left)
  const dir = mkdtempSync(join(tmpdir(), 'mtrl-web-bench-'))
  try {
    const run = RunDir.create('bench', dir)
    const lines: string[] = []
    const t0 = performance.now()
    const result = await Pipeline.run({ run, backend: { name: 'wasm' }, reporter: { line: (l) => lines.push(l) }, report: false })(decoded.right)()
    if (E.isLeft(result)) throw new Error(result.left.message)
    return { where: 'Node', backend: 'wasm', seconds: (performance.now() - t0) / 1000, lines, records: run.readMetrics() }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** SFT tokens/s (the stages' own figure), RL rollout and update tokens/s (means over iterations). */
export const speeds = (ran: Ran): { readonly sft: number; readonly rollout: number; readonly update: number } => {
  const sft = ran.lines.flatMap((l) => [...l.matchAll(/done in [\d.]+ s \((\d+) tokens\/s\)/g)].map((m) => Number(m[1])))
  const rl = ran.records.filter((r) => r['kind'] === 'rl')
  const mean = (xs: ReadonlyArray<number>): number => (xs.length === 0 ? Number.NaN : xs.reduce((a, b) => a + b, 0) / xs.length)
  return {
    sft: mean(sft),
    rollout: mean(rl.map((r) => Number(r['perf/tokens_per_s']))),
    update: mean(rl.map((r) => Number(r['perf/update_tokens_per_s'])))
  }
}
