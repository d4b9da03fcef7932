// Lint for every project: TypeScript rules plus Nx module boundaries, which enforce the
// dependency direction of ARCHITECTURE.md (core <- envs, rewards, advantages, policy <- rollout
// <- trainers <- app) and forbid import cycles.
import nx from '@nx/eslint-plugin'
import { builtinModules } from 'node:module'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import tseslint from 'typescript-eslint'

const backends = ['@tensorflow/tfjs-node', '@tensorflow/tfjs-node-gpu', '@tensorflow/tfjs-backend-wasm', '@tensorflow/tfjs-backend-cpu']

// Projects tagged platform:any (libs and lint fixtures), read from their project.json: their
// sources may import no Node built-in, so the tag says what the code does.
const workspace = fileURLToPath(new URL('.', import.meta.url))
const platformAny = ['libs', 'tools/lint-fixtures'].flatMap((root) =>
  readdirSync(join(workspace, root))
    .map((name) => `${root}/${name}`)
    .filter(
      (dir) =>
        existsSync(join(workspace, dir, 'project.json')) &&
        JSON.parse(readFileSync(join(workspace, dir, 'project.json'), 'utf8')).tags?.includes('platform:any')
    )
)
const nodeBuiltins = builtinModules.filter((m) => !m.startsWith('_'))
const noBackend = [...backends, '@mtrl/testing', '@mtrl/backend'].map((name) => ({
  name,
  message: 'libraries never load a TensorFlow.js backend or test helpers; the app chooses the backend'
}))

// Dependency direction (ARCHITECTURE.md) between scopes, for every file.
const scopeConstraints = [
  { sourceTag: 'scope:core', onlyDependOnLibsWithTags: ['scope:core'] },
  { sourceTag: 'scope:env', onlyDependOnLibsWithTags: ['scope:core', 'scope:testing'] },
  { sourceTag: 'scope:rewards', onlyDependOnLibsWithTags: ['scope:core', 'scope:testing'] },
  { sourceTag: 'scope:advantages', onlyDependOnLibsWithTags: ['scope:core', 'scope:testing'] },
  { sourceTag: 'scope:policy', onlyDependOnLibsWithTags: ['scope:core', 'scope:testing', 'scope:backend'] },
  { sourceTag: 'scope:backend', onlyDependOnLibsWithTags: [] },
  { sourceTag: 'scope:testing', onlyDependOnLibsWithTags: ['scope:core', 'scope:backend'] },
  // command-line programs as data (only the app uses it)
  { sourceTag: 'scope:cli', onlyDependOnLibsWithTags: ['scope:core', 'scope:testing'] },
  // the HTTP server shape env-http's and serving's servers share (no mtrl library below it)
  { sourceTag: 'scope:http', onlyDependOnLibsWithTags: ['scope:testing'] },
  {
    sourceTag: 'scope:rollout',
    onlyDependOnLibsWithTags: ['scope:core', 'scope:policy', 'scope:rewards', 'scope:advantages', 'scope:env', 'scope:testing', 'scope:backend']
  },
  { sourceTag: 'scope:optim', onlyDependOnLibsWithTags: ['scope:testing'] },
  { sourceTag: 'scope:replicas', onlyDependOnLibsWithTags: ['scope:optim', 'scope:testing'] },
  { sourceTag: 'scope:eval', onlyDependOnLibsWithTags: ['scope:core', 'scope:rollout', 'scope:policy', 'scope:env', 'scope:testing', 'scope:backend'] },
  // the two trainers are siblings: both build on optim, neither on the other
  {
    sourceTag: 'scope:trainer',
    onlyDependOnLibsWithTags: [
      'scope:core',
      'scope:policy',
      'scope:rewards',
      'scope:advantages',
      'scope:rollout',
      'scope:optim',
      'scope:replicas',
      'scope:env',
      'scope:testing',
      'scope:backend'
    ]
  },
  {
    sourceTag: 'scope:rollout-queue',
    onlyDependOnLibsWithTags: ['scope:core', 'scope:policy', 'scope:rollout', 'scope:replicas', 'scope:env', 'scope:trainer', 'scope:testing', 'scope:backend']
  },
  { sourceTag: 'scope:env-http', onlyDependOnLibsWithTags: ['scope:core', 'scope:env', 'scope:http', 'scope:testing', 'scope:backend'] },
  // serving's benchmark plays TextWorld (a devDependency); its sources use core and policy only
  { sourceTag: 'scope:serving', onlyDependOnLibsWithTags: ['scope:core', 'scope:policy', 'scope:env', 'scope:http', 'scope:testing', 'scope:backend'] },
  // agents as code: the served policy (serving) plays trainer-rl's episodes through the rollout contract
  {
    sourceTag: 'scope:agent-rl',
    onlyDependOnLibsWithTags: [
      'scope:core',
      'scope:policy',
      'scope:rollout',
      'scope:serving',
      'scope:trainer',
      'scope:advantages',
      'scope:optim',
      'scope:env',
      'scope:testing',
      'scope:backend'
    ]
  },
  { sourceTag: 'scope:experiment', onlyDependOnLibsWithTags: ['scope:eval', 'scope:testing'] },
  // pretraining transcripts: the environments played without a plan, in the rollouts' layout (its
  // tests check the seeds against eval's ranges and the tokens against trainer-sft's replay with
  // policy's tokenizer: devDependencies; its sources are platform:any, which keeps policy and the
  // trainers out of them)
  {
    sourceTag: 'scope:pretrain',
    onlyDependOnLibsWithTags: ['scope:core', 'scope:env', 'scope:rollout', 'scope:eval', 'scope:policy', 'scope:trainer', 'scope:testing', 'scope:backend']
  },
  // recipes and the pipeline that runs them compose every library below the app
  {
    sourceTag: 'scope:recipe',
    onlyDependOnLibsWithTags: [
      'scope:core',
      'scope:env',
      'scope:env-http',
      'scope:serving',
      'scope:agent-rl',
      'scope:policy',
      'scope:rewards',
      'scope:rollout',
      'scope:replicas',
      'scope:trainer',
      'scope:eval',
      'scope:rollout-queue',
      'scope:experiment',
      'scope:pretrain',
      'scope:testing',
      'scope:backend'
    ]
  },
  { sourceTag: 'scope:app', onlyDependOnLibsWithTags: ['*'] },
  { sourceTag: 'scope:tools', onlyDependOnLibsWithTags: ['*'] }
]
const boundaries = (depConstraints) => ['error', { enforceBuildableLibDependency: false, allowCircularSelfDependency: false, depConstraints }]

export default [
  { ignores: ['**/dist/**', '**/node_modules/**', '**/tmp/**', '**/.nx/**', '**/*.config.ts', 'tools/lint-fixtures/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.mts', '**/*.mjs'],
    plugins: { '@nx': nx },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@nx/enforce-module-boundaries': boundaries(scopeConstraints)
    }
  },
  {
    // Sizes a reader can hold (STYLE.md; tools/test/sizes.test.ts measures the same): functions of
    // at most 100 code lines in every source, 60 in the RL core (below); modules of at most 300
    // code lines; prettier's print width (160), which prettier does not enforce on comments,
    // strings or template literals: comments are held to it here, long strings and URLs are not.
    files: ['libs/*/src/**/*.ts', 'apps/*/src/**/*.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 100, skipBlankLines: true, skipComments: true }],
      'max-lines': ['error', { max: 300, skipBlankLines: true, skipComments: true }],
      'max-len': ['error', { code: 160, ignoreUrls: true, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true }]
    }
  },
  {
    // The RL core: functions of at most 60 code lines (a longer one holds more than one step).
    files: ['libs/{trainer-rl,rollout,advantages,trainer-sft,replicas,optim}/src/**/*.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true }] }
  },
  {
    // Library sources (tests may use any library): a platform:any library depends only on
    // platform:any libraries.
    files: ['libs/*/src/**/*.ts', 'tools/lint-fixtures/*/src/**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': boundaries([
        ...scopeConstraints,
        { sourceTag: 'platform:any', onlyDependOnLibsWithTags: ['platform:any', 'type:testing', 'scope:backend'] }
      ])
    }
  },
  {
    // Library sources: no backend (only the app and @mtrl/backend choose one) and no test helpers.
    files: ['libs/*/src/**/*.ts', 'tools/lint-fixtures/*/src/**/*.ts'],
    ignores: ['libs/backend/src/**', 'libs/testing/src/**'],
    rules: { 'no-restricted-imports': ['error', { paths: noBackend }] }
  },
  {
    // Sources of platform:any projects: no Node built-in either (tag them platform:node to use one).
    files: platformAny.map((dir) => `${dir}/src/**/*.ts`),
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: noBackend,
          patterns: [
            {
              group: ['node:*', ...nodeBuiltins, ...nodeBuiltins.map((m) => `${m}/*`)],
              message: 'a platform:any library imports no Node built-in: tag it platform:node, or keep the Node part elsewhere'
            }
          ]
        }
      ]
    }
  }
]
