/**
 * @mtrl/core: the contracts every mtrl package codes against. No tensors here.
 *
 * @since 0.1.0
 */
export * as Chat from './Chat.js'
export * as Decode from './Decode.js'
export * as Env from './Env.js'
export * as EnvEntry from './EnvEntry.js'
export * as EnvError from './EnvError.js'
export * as Numbers from './Numbers.js'
export * as RewardFn from './RewardFn.js'
export * as Rng from './Rng.js'
export * as Sampler from './Sampler.js'
export * as Tokenizer from './Tokenizer.js'
export * as Trajectory from './Trajectory.js'
