/**
 * @mtrl/policy: the language-model policy of mtrl on TensorFlow.js. A decoder-only transformer
 * (Llama family or GPT-2 style) with Hugging Face weight names, a value head, tokenizers with a
 * chat template, KV-cache sampling, differentiable scoring, safetensors checkpoints and local
 * Hugging Face model loading. The API contract is docs/decisions/0002-policy-api.md.
 *
 * @since 0.1.0
 */
export * as Agent from './Agent.js'
export * as ChatTemplate from './ChatTemplate.js'
export * as Checkpoint from './Checkpoint.js'
export * as Critic from './Critic.js'
export * as Decoder from './Decoder.js'
export * as Export from './Export.js'
export * as Families from './Families.js'
export * as Family from './Family.js'
export * as HfTokenizer from './HfTokenizer.js'
export * as HuggingFace from './HuggingFace.js'
export * as Jinja from './Jinja.js'
export * as Logprobs from './Logprobs.js'
export * as Lora from './Lora.js'
export * as ModelConfig from './ModelConfig.js'
export * as OptimizerState from './OptimizerState.js'
export * as Policy from './Policy.js'
export * as Pretrained from './Pretrained.js'
export * as Replica from './Replica.js'
export * as PolicyError from './PolicyError.js'
export * as Safetensors from './Safetensors.js'
export * as Sampling from './Sampling.js'
export * as Sampler from './Sampler.js'
export * as Scoring from './Scoring.js'
export * as Tokenizer from './Tokenizer.js'
export * as WordTokenizer from './WordTokenizer.js'
