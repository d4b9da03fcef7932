/**
 * `mtrl logprobs`: token ids, next-token log-probs and a greedy continuation of a text under any
 * loadable model folder (a Hugging Face folder of any family of `Families`, or an mtrl
 * checkpoint): the quick way to check
 * a model loaded right against another framework.
 */
import { Progress } from '@mtrl/experiment'
import { Families, Logprobs, PolicyError } from '@mtrl/policy'
import * as E from 'fp-ts/lib/Either.js'
import { resolve } from 'node:path'
import { backendFlag, failed, int, make, text, usage } from '../Command.js'
import { startBackend } from '../Runtime.js'

export const logprobs = make({
  name: 'logprobs',
  summary: 'ids, next-token log-probs and greedy ids of a text under a model folder',
  help: `mtrl logprobs --model DIR --text "..." [--greedy 12] [--backend B]

Prints JSON { ids, nextTokenLogprobs, greedy }: nextTokenLogprobs[i] = log p(ids[i+1] | ids[..i]),
greedy = the greedy continuation ids. DIR is a Hugging Face folder (config.json,
model.safetensors or model.safetensors.index.json, tokenizer.json) of model_type
${Families.modelTypes.join(', ')}, or an mtrl checkpoint.

Example:
  mtrl logprobs --model fixtures/hf/tiny-qwen2 --text "Hello world"`,
  flags: { ...backendFlag, model: text, text, greedy: int(12) },
  run:
    ({ values }) =>
    async () => {
      const { model, text, greedy, backend } = values
      if (model === undefined || text === undefined) return E.left(usage('--model DIR and --text "..." are required'))
      const started = await startBackend(backend, true)()
      if (E.isLeft(started)) return started
      const folder = E.mapLeft(usage)(Progress.modelFolder(resolve(model)))
      if (E.isLeft(folder)) return folder
      const result = await Logprobs.run({ model: folder.right, text, greedyTokens: greedy })()
      if (E.isLeft(result)) return E.left(failed(PolicyError.message(result.left)))
      process.stdout.write(`${JSON.stringify(result.right)}\n`)
      return E.right(0)
    }
})
