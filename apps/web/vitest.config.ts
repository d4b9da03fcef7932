import { projectConfig } from '../../vitest.shared.js'

// The page is built once (test/support/build.ts) and served for the browser tests (vite preview
// + a headless Chromium run).
export default projectConfig(__dirname, { testTimeout: 300_000, hookTimeout: 180_000, globalSetup: ['test/support/build.ts'] })
