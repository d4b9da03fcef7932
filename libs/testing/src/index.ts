/**
 * @mtrl/testing (private): helpers for tests only. Never imported from a lib's src/.
 *
 * @since 0.1.0
 */
export * as Arbitraries from './Arbitraries.js'
export * as GuessEnv from './GuessEnv.js'
export { expectNoLeak } from './Leak.js'
export * as Services from './Services.js'
export * as TestBackend from './TestBackend.js'
export * as Toy from './Toy.js'
