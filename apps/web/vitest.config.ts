import { projectConfig } from '../../vitest.shared.js'

// The page is built and served once for the browser tests (vite build + a headless Chromium run).
export default projectConfig(__dirname, { testTimeout: 300_000, hookTimeout: 180_000 })
