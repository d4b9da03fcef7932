/**
 * A pretrained policy from a folder: an mtrl checkpoint (its `config.json` says so) or a local
 * Hugging Face folder (Llama, Qwen2), with its tokenizer. The one loader behind `Logprobs.run`
 * and an app's `hf` and `checkpoint` models.
 *
 * @since 0.1.0
 */
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import * as Checkpoint from './Checkpoint.js'
import * as HuggingFace from './HuggingFace.js'
import type * as Policy from './Policy.js'
import type { PolicyError } from './PolicyError.js'

/**
 * Loads the policy in `dir`. Of a checkpoint only the policy is kept (a critic saved with it is
 * freed); `options` (`lora`, `maxLen`) apply to Hugging Face folders. The caller owns the policy.
 *
 * @example
 * import { Pretrained } from '@mtrl/policy'
 * const policy = await Pretrained.load('models/Qwen2-0.5B', { maxLen: 2048 })()
 *
 * @category constructors
 * @since 0.1.0
 */
export const load =
  (dir: string, options: HuggingFace.LoadOptions = {}): TE.TaskEither<PolicyError, Policy.Policy> =>
  async () => {
    if (!(await Checkpoint.isCheckpoint(dir))) return HuggingFace.load(dir, options)()
    const loaded = await Checkpoint.load(dir)()
    return E.map((c: Checkpoint.Contents) => {
      c.critic?.dispose()
      return c.policy
    })(loaded)
  }
