/**
 * The built page, served as `npm run web` serves it (vite preview, cross-origin isolated), and a
 * headless Chromium on it that records console errors.
 */
import { chromium, type Browser, type Page } from 'playwright-core'
import { fileURLToPath } from 'node:url'
import { build, preview, type PreviewServer } from 'vite'

export const root = fileURLToPath(new URL('../..', import.meta.url))
export const chromiumPath = '/usr/bin/chromium'

/** Builds the page (quietly) and serves it on a free port. */
export const serve = async (): Promise<{ readonly url: string; readonly close: () => Promise<void> }> => {
  await build({ root, logLevel: 'error' })
  const server: PreviewServer = await preview({ root, logLevel: 'error', preview: { port: 0, strictPort: false, host: '127.0.0.1' } })
  const url = server.resolvedUrls?.local[0]
  if (url === undefined) throw new Error('vite preview gave no URL')
  return { url, close: () => server.close() }
}

/** A page of a new headless Chromium; `errors` collects console errors and uncaught exceptions. */
export const open = async (url: string): Promise<{ readonly browser: Browser; readonly page: Page; readonly errors: string[] }> => {
  const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] })
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } })
  const errors: string[] = []
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text())
  })
  page.on('pageerror', (e) => errors.push(e.message))
  await page.goto(url)
  return { browser, page, errors }
}
