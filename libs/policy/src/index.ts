/**
 * @mtrl/policy: the language-model policy of mtrl on TensorFlow.js. A decoder-only transformer
 * (Llama family or GPT-2 style) with Hugging Face weight names, a value head, tokenizers with a
 * chat template, KV-cache sampling, differentiable scoring, safetensors checkpoints and local
 * Hugging Face model loading. The API contract is docs/decisions/0002-policy-api.md.
 *
 * @since 0.1.0
 */
export * as Critic from './Critic.js'
export * as Lora from './Lora.js'
export * as ModelConfig from './ModelConfig.js'
export * as Policy from './Policy.js'
export * as Sampler from './Sampler.js'
export * as Scoring from './Scoring.js'
export * as Tokenizer from './Tokenizer.js'
