// Lint for every project: TypeScript rules plus Nx module boundaries, which enforce the
// dependency direction of ARCHITECTURE.md (core <- envs, rewards, advantages, policy <- rollout
// <- trainers <- app) and forbid import cycles.
import nx from '@nx/eslint-plugin'
import tseslint from 'typescript-eslint'

const backends = ['@tensorflow/tfjs-node', '@tensorflow/tfjs-node-gpu', '@tensorflow/tfjs-backend-wasm', '@tensorflow/tfjs-backend-cpu']

export default [
  { ignores: ['**/dist/**', '**/node_modules/**', '**/tmp/**', '**/.nx/**', '**/*.config.ts', 'tools/lint-fixtures/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.mts', '**/*.mjs'],
    plugins: { '@nx': nx },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allowCircularSelfDependency: false,
          depConstraints: [
            { sourceTag: 'scope:core', onlyDependOnLibsWithTags: ['scope:core'] },
            { sourceTag: 'scope:env', onlyDependOnLibsWithTags: ['scope:core', 'scope:testing'] },
            { sourceTag: 'scope:rewards', onlyDependOnLibsWithTags: ['scope:core', 'scope:testing'] },
            { sourceTag: 'scope:advantages', onlyDependOnLibsWithTags: ['scope:core', 'scope:testing'] },
            { sourceTag: 'scope:policy', onlyDependOnLibsWithTags: ['scope:core', 'scope:testing', 'scope:backend'] },
            { sourceTag: 'scope:backend', onlyDependOnLibsWithTags: [] },
            { sourceTag: 'scope:testing', onlyDependOnLibsWithTags: ['scope:core', 'scope:backend'] },
            { sourceTag: 'scope:rollout', onlyDependOnLibsWithTags: ['scope:core', 'scope:policy', 'scope:rewards', 'scope:advantages', 'scope:env', 'scope:testing', 'scope:backend'] },
            { sourceTag: 'scope:optim', onlyDependOnLibsWithTags: ['scope:testing'] },
            { sourceTag: 'scope:eval', onlyDependOnLibsWithTags: ['scope:core', 'scope:rollout', 'scope:policy', 'scope:env', 'scope:testing', 'scope:backend'] },
            // the two trainers are siblings: both build on optim, neither on the other
            { sourceTag: 'scope:trainer', onlyDependOnLibsWithTags: ['scope:core', 'scope:policy', 'scope:rewards', 'scope:advantages', 'scope:rollout', 'scope:optim', 'scope:env', 'scope:testing', 'scope:backend'] },
            { sourceTag: 'scope:rollout-queue', onlyDependOnLibsWithTags: ['scope:core', 'scope:policy', 'scope:rollout', 'scope:env', 'scope:trainer', 'scope:testing', 'scope:backend'] },
            { sourceTag: 'scope:env-http', onlyDependOnLibsWithTags: ['scope:core', 'scope:env', 'scope:testing', 'scope:backend'] },
            { sourceTag: 'scope:app', onlyDependOnLibsWithTags: ['*'] },
            { sourceTag: 'scope:tools', onlyDependOnLibsWithTags: ['*'] },
            { sourceTag: 'platform:any', onlyDependOnLibsWithTags: ['platform:any', 'type:testing', 'scope:backend'] }
          ]
        }
      ]
    }
  },
  {
    // Library sources: no backend (only the app and @mtrl/backend choose one) and no test helpers.
    files: ['libs/*/src/**/*.ts', 'tools/lint-fixtures/*/src/**/*.ts'],
    ignores: ['libs/backend/src/**', 'libs/testing/src/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [...backends, '@mtrl/testing', '@mtrl/backend'].map((name) => ({
            name,
            message: 'libraries never load a TensorFlow.js backend or test helpers; the app chooses the backend'
          }))
        }
      ]
    }
  }
]
