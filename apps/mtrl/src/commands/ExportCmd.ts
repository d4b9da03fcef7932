/**
 * `mtrl export RUN_DIR --to DIR`: a trained model written back as a Hugging Face folder, LoRA
 * merged, in its family's layout (`Export`), for transformers, vLLM, llama.cpp or Ollama.
 */
import { Progress } from '@mtrl/experiment'
import { Export, Families, PolicyError, Pretrained } from '@mtrl/policy'
import * as E from 'fp-ts/lib/Either.js'
import { resolve } from 'node:path'
import { backendFlag, failed, make, text, usage } from '../Command.js'
import { startBackend } from '../Runtime.js'

export const exportCommand = make({
  name: 'export',
  summary: 'write a trained model (LoRA merged) as a Hugging Face folder',
  help: `mtrl export RUN_DIR|CHECKPOINT --to DIR [--backend B]

Writes DIR with config.json, model.safetensors (float32, LoRA adapters merged into the weights),
tokenizer.json and tokenizer_config.json (with the chat template), in the layout of the family
the model was read from (model_type ${Families.modelTypes.join(', ')}; a model trained from scratch
with RoPE, RMSNorm and SwiGLU as llama). transformers' AutoModelForCausalLM.from_pretrained(DIR)
loads it and computes the same logits. RUN_DIR names its last finished stage's checkpoint.

Example:
  mtrl export runs/my-run --to exported/my-model`,
  flags: { ...backendFlag, to: text },
  positionals: true,
  run:
    ({ values, positionals }) =>
    async () => {
      if (positionals[0] === undefined || values.to === undefined) return E.left(usage('a run or checkpoint folder and --to DIR are required'))
      const dir = E.mapLeft(usage)(Progress.modelFolder(resolve(positionals[0])))
      if (E.isLeft(dir)) return dir
      const started = await startBackend(values.backend ?? 'cpu', true)()
      if (E.isLeft(started)) return started
      const loaded = await Pretrained.load(dir.right)()
      if (E.isLeft(loaded)) return E.left(failed(PolicyError.message(loaded.left)))
      try {
        const saved = await Export.save(resolve(values.to), loaded.right)()
        if (E.isLeft(saved)) return E.left(failed(PolicyError.message(saved.left)))
        process.stdout.write(
          `${dir.right} -> ${resolve(values.to)} (${E.isRight(Export.familyFor(loaded.right.config)) ? (Export.familyFor(loaded.right.config) as E.Right<{ architecture: string }>).right.architecture : ''}${loaded.right.lora === undefined ? '' : ', LoRA merged'})\n`
        )
        return E.right(0)
      } finally {
        loaded.right.dispose()
      }
    }
})
