import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Services } from '@mtrl/testing'
import { chromium } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Report.js'
import * as RunDir from '../src/RunDir.js'

const metrics: Array<Record<string, unknown>> = [
  {
    kind: 'eval',
    phase: 'before training',
    results: [{ env: 'textworld/w2-o3-q4', episodes: 100, successRate: 0.05, ci95: { low: 0.02, high: 0.11 }, turnsMean: 8 }]
  },
  ...Array.from({ length: 20 }, (_, i) => ({ kind: 'sft', stage: 0, step: i, 'loss/sft': 3 / (i + 1), 'loss/context': 2 / (i + 1) })),
  ...Array.from({ length: 10 }, (_x, i) => ({
    kind: 'rl',
    stage: 1,
    iteration: i,
    ...Object.fromEntries(_.curves.flatMap((c) => c.metrics).map((metric, k) => [metric, (k + 1) * 0.01 * i])),
    'episode/success_rate': i / 10,
    'loss/value': i === 3 ? Number.NaN : 0.1
  })),
  {
    kind: 'eval',
    phase: 'after stage 2 (rl on textworld/w2-o3-q4)',
    results: [
      {
        env: 'textworld/w2-o3-q4',
        episodes: 100,
        successRate: 0.93,
        ci95: { low: 0.86, high: 0.97 },
        turnsMean: 4.2,
        seeds: { split: 'test', first: 4000000000, count: 100 }
      }
    ]
  }
]

const chromiumPath = '/usr/bin/chromium'

describe('Report', () => {
  it('renders the evaluation table with both phases', () => {
    const html = _.render('test run', metrics)
    expect(html).toContain('before training')
    expect(html).toContain('93.0%')
    expect(html).toContain('textworld/w2-o3-q4')
    expect(html).toContain('test split, seeds 4000000000-4000000099')
    // one canvas for the SFT loss and one per RL curve
    expect(html.match(/<canvas/g)?.length).toBe(1 + _.curves.length)
  })

  it('draws the KL to the reference only when a KL term was on, and the drift from the prior whenever it was logged', () => {
    const noKlTerm = metrics.map((m) => (m['kind'] === 'rl' ? { ...m, 'kl/mean': Number.NaN, 'kl/coef': Number.NaN } : m))
    const html = _.render('test run', noKlTerm)
    expect(html.match(/<canvas/g)?.length).toBe(_.curves.length)
    expect(html).not.toContain('KL to the reference')
    expect(html).toContain('Drift from the prior')
  })

  it('draws the context loss beside the action loss only when the run had one', () => {
    expect(_.render('test run', metrics)).toMatch(/"label":\s*"loss\/context"/)
    const actionsOnly = metrics.map((m) => (m['kind'] === 'sft' ? { ...m, 'loss/context': null } : m))
    const html = _.render('test run', actionsOnly)
    expect(html).toMatch(/"label":\s*"loss\/sft"/)
    expect(html).not.toMatch(/"label":\s*"loss\/context"/)
  })

  it("charts an SFT stage's held-out checks when it had any", () => {
    const checks = [
      { kind: 'sft-check', stage: 0, step: 10, success: 0.04, episodes: 50 },
      { kind: 'sft-check', stage: 0, step: 20, success: 0.3, episodes: 50 }
    ]
    const html = _.render('test run', [...metrics, ...checks])
    expect(html.match(/<canvas/g)?.length).toBe(2 + _.curves.length)
    expect(html).toContain('SFT held-out checks')
    expect(html).toMatch(/"x":\s*20,\s*"y":\s*0\.3/)
    expect(_.render('test run', metrics)).not.toContain('SFT held-out checks')
  })

  it('escapes text from metrics', () => {
    expect(_.render('<script>x</script>', [])).not.toContain('<script>x</script>')
  })

  it('writes report.html into the run folder', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mtrl-report-'))
    try {
      const run = RunDir.create('r', dir)
      for (const m of metrics) run.appendMetrics(m)
      const path = _.write(run, 'written')
      expect(path).toBe(join(run.path, 'report.html'))
      expect(readFileSync(path, 'utf8')).toContain('93.0%')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it.skipIf(!existsSync(chromiumPath))(`draws every chart in headless Chromium, offline, without console errors ${Services.tag('chromium')}`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mtrl-report-'))
    const file = join(dir, 'report.html')
    writeFileSync(file, _.render('test run', metrics))
    const browser = await chromium.launch({
      executablePath: chromiumPath,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync'
      ]
    })
    try {
      const page = await browser.newPage()
      const errors: string[] = []
      const requests: string[] = []
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text())
      })
      page.on('pageerror', (e) => errors.push(e.message))
      page.on('request', (r) => {
        if (!r.url().startsWith('file:')) requests.push(r.url())
      })
      await page.goto(`file://${file}`)
      await page.waitForSelector('body[data-charts]')
      expect(await page.evaluate(() => document.body.dataset['charts'])).toBe(String(1 + _.curves.length))
      // every canvas has been drawn on (not blank)
      const blank = await page.evaluate(
        () =>
          [...document.querySelectorAll('canvas')].filter((c) => {
            const ctx = (c as HTMLCanvasElement).getContext('2d')!
            const data = ctx.getImageData(0, 0, (c as HTMLCanvasElement).width, (c as HTMLCanvasElement).height).data
            return !data.some((v) => v !== 0)
          }).length
      )
      expect(blank).toBe(0)
      expect(errors).toEqual([])
      expect(requests).toEqual([])
    } finally {
      await browser.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
