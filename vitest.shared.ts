/**
 * Shared vitest settings for every project: resolve sibling libs to their sources (the
 * "@mtrl/source" export condition), write a JSON report that tools/test.mjs sums up, and point
 * the test-seed ledger (MTRL_LEDGER) at a file of this test run under tmp/, so that no test
 * writes to the committed results/test-looks.jsonl.
 */
import { existsSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { defineConfig, type ViteUserConfig } from 'vitest/config'

const workspaceRoot = (dir: string): string => (existsSync(join(dir, 'nx.json')) || dirname(dir) === dir ? dir : workspaceRoot(dirname(dir)))

const conditions = ['@mtrl/source', 'module', 'node', 'development|production']

export const projectConfig = (dir: string, overrides: ViteUserConfig['test'] = {}): ViteUserConfig =>
  defineConfig({
    resolve: { conditions },
    ssr: { resolve: { conditions, externalConditions: ['@mtrl/source'] } },
    test: {
      include: ['test/**/*.test.ts'],
      testTimeout: 60_000,
      hookTimeout: 60_000,
      pool: 'forks',
      reporters: ['default', 'json'],
      outputFile: { json: join(workspaceRoot(dir), 'tmp', 'test-results', `${basename(dir)}.json`) },
      env: { MTRL_LEDGER: join(workspaceRoot(dir), 'tmp', 'test-looks', `${basename(dir)}-${process.pid}.jsonl`) },
      ...overrides
    }
  })
