/**
 * Shared vitest settings for every project: resolve sibling libs to their sources (the
 * "@mtrl/source" export condition) and write a JSON report that tools/test.mjs sums up.
 */
import { basename, resolve } from 'node:path'
import { defineConfig, type UserConfig } from 'vitest/config'

const conditions = ['@mtrl/source', 'module', 'node', 'development|production']

export const projectConfig = (dir: string, overrides: UserConfig['test'] = {}): UserConfig =>
  defineConfig({
    resolve: { conditions },
    ssr: { resolve: { conditions, externalConditions: ['@mtrl/source'] } },
    test: {
      include: ['test/**/*.test.ts'],
      testTimeout: 60_000,
      hookTimeout: 60_000,
      pool: 'forks',
      reporters: ['default', 'json'],
      outputFile: { json: resolve(dir, '../../tmp/test-results', `${basename(dir)}.json`) },
      ...overrides
    }
  })
