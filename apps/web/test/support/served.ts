/**
 * The built page, served as `npm run web` serves it (vite preview, cross-origin isolated), and a
 * headless Chromium on it that records console errors. The page is built once per test run
 * (build.ts, vitest's global setup); a `serve` outside it builds into a folder of its own.
 */
import { chromium, type Browser, type Page } from 'playwright-core'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build, preview, type PreviewServer } from 'vite'
import { inject } from 'vitest'

export const root = fileURLToPath(new URL('../..', import.meta.url))
export const chromiumPath = '/usr/bin/chromium'

/** Serves the page the global setup built (or builds it, quietly, where none was) on a free port. */
export const serve = async (): Promise<{ readonly url: string; readonly close: () => Promise<void> }> => {
  const shared = inject('webDist')
  const outDir = shared !== '' && shared !== undefined ? shared : mkdtempSync(join(tmpdir(), 'mtrl-web-dist-'))
  if (outDir !== shared) await build({ root, logLevel: 'error', build: { outDir } })
  const server: PreviewServer = await preview({ root, logLevel: 'error', build: { outDir }, preview: { port: 0, strictPort: false, host: '127.0.0.1' } })
  const url = server.resolvedUrls?.local[0]
  if (url === undefined) throw new Error('vite preview gave no URL')
  return {
    url,
    close: async () => {
      await server.close()
      if (outDir !== shared) rmSync(outDir, { recursive: true, force: true })
    }
  }
}

/**
 * Chromium's switches: no GPU process (the default: the page's wasm and WebGL work without one),
 * or, with `webgpu`, WebGPU on SwiftShader's Vulkan (shipped with Debian's chromium), with the
 * GPU process's own drawing on that Vulkan too: TensorFlow.js reads a WebGPU buffer
 * synchronously (`dataSync`) by drawing it on a canvas, and with the default (GL) compositing
 * that read gives zeros and loses the device. `--enable-unsafe-webgpu`: Linux builds do not
 * expose WebGPU by default.
 */
const switches = (webgpu: boolean): ReadonlyArray<string> => [
  '--no-sandbox',
  '--disable-dev-shm-usage',
  ...(webgpu ? ['--enable-unsafe-webgpu', '--enable-features=Vulkan', '--use-vulkan=swiftshader', '--use-angle=vulkan'] : ['--disable-gpu'])
]

/** A page of a new headless Chromium; `errors` collects console errors and uncaught exceptions. */
export const open = async (
  url: string,
  options: { readonly webgpu?: boolean } = {}
): Promise<{ readonly browser: Browser; readonly page: Page; readonly errors: string[] }> => {
  const browser = await chromium.launch({ executablePath: chromiumPath, args: [...switches(options.webgpu === true)] })
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } })
  const errors: string[] = []
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text())
  })
  page.on('pageerror', (e) => errors.push(e.message))
  await page.goto(url)
  return { browser, page, errors }
}
