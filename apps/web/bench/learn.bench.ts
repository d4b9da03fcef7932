/**
 * `npm run bench:learn -w @mtrl/web`: the page's default preset (the default recipe's SFT then
 * PPO on TextWorld w2-o3-q4, in the browser: one replica) trained in headless Chromium from a
 * new agent, timed, with the held-out greedy success of each evaluation (100 test seeds).
 * BACKEND picks the page's backend (default auto); TIMEOUT_S bounds the wait (default 3600);
 * SCREENSHOT=path: after the run the agent plays a game in the Play panel and the whole page is
 * saved there (the README's screenshot).
 */
import { serve, open } from '../test/support/served.js'

interface PageState {
  readonly status: string
  readonly records: ReadonlyArray<Readonly<Record<string, unknown>>>
  readonly lines: ReadonlyArray<string>
  readonly backend?: { readonly name: string; readonly detail: string }
}

const served = await serve()
const { browser, page, errors } = await open(`${served.url}?backend=${process.env['BACKEND'] ?? 'auto'}`, { webgpu: process.env['BACKEND'] === 'webgpu' })
try {
  await page.waitForFunction(() => (window as unknown as { mtrlPage?: PageState }).mtrlPage?.backend !== undefined, null, { timeout: 60_000 })
  await page.selectOption('#recipe-preset', 'default')
  const recipe = JSON.parse(await page.inputValue('#recipe-json')) as { stages: ReadonlyArray<Record<string, unknown>> }
  const t0 = performance.now()
  await page.click('#train')
  let shown = 0
  for (;;) {
    await new Promise((r) => setTimeout(r, 5000))
    const state = await page.evaluate(() => (window as unknown as { mtrlPage: PageState }).mtrlPage)
    const evals = state.records.filter((r) => r['kind'] === 'eval')
    for (const e of evals.slice(shown)) {
      const results = e['results'] as ReadonlyArray<{ env: string; successRate: number }>
      console.log(
        `${((performance.now() - t0) / 1000 / 60).toFixed(1)} min  eval ${String(e['phase'])}: ${results.map((r) => `${r.env} ${(100 * r.successRate).toFixed(1)}%`).join(', ')}`
      )
    }
    shown = evals.length
    if (['finished', 'failed'].includes(state.status)) {
      console.log(`backend: ${state.backend!.name} (${state.backend!.detail})`)
      console.log(`stages: ${recipe.stages.map((s) => `${String(s['kind'])} ${JSON.stringify(s)}`).join('\n        ')}`)
      console.log(`${state.status} in ${((performance.now() - t0) / 1000 / 60).toFixed(1)} min; console errors: ${errors.length}`)
      const screenshot = process.env['SCREENSHOT']
      if (screenshot !== undefined) {
        // the trained agent plays a game of the page's to its end, then the page from the top
        await page.click('#play-start')
        await page.waitForFunction(() => (window as unknown as { mtrlPage: { lastGame?: unknown } }).mtrlPage.lastGame !== undefined, null, { timeout: 30_000 })
        await page.click('#play-auto')
        await page.waitForFunction(() => (window as unknown as { mtrlPage: { lastGame?: { done: boolean } } }).mtrlPage.lastGame?.done === true, null, {
          timeout: 60_000
        })
        await page.screenshot({ path: screenshot, fullPage: true })
        console.log(`screenshot: ${screenshot}`)
      }
      break
    }
    if (performance.now() - t0 > Number(process.env['TIMEOUT_S'] ?? 3600) * 1000) throw new Error('timed out')
  }
} finally {
  await browser.close()
  await served.close()
}
