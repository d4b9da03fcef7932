import { expectNoLeak, Services, TestBackend } from '@mtrl/testing'
import * as tf from '@tensorflow/tfjs'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as _ from '../src/Export.js'
import * as HuggingFace from '../src/HuggingFace.js'
import * as Lora from '../src/Lora.js'
import * as ModelConfig from '../src/ModelConfig.js'
import * as Policy from '../src/Policy.js'

const fixtures = resolve(dirname(fileURLToPath(import.meta.url)), '../../../fixtures/hf')
const scratch = mkdtempSync(join(tmpdir(), 'mtrl-export-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

// Python's transformers and torch, where the machine has them (.ci/run installs them from the local pip index)
const transformers = Services.available('python-transformers')
const families = [
  'tiny-qwen2',
  'tiny-qwen3',
  'tiny-llama3',
  'tiny-llama-yarn',
  'tiny-mistral',
  'tiny-gemma2',
  'tiny-gemma3',
  'tiny-phi3',
  'tiny-smollm3',
  'tiny-olmo2'
]
const ids = [5, 9, 17, 33, 65, 129, 7, 3, 250, 11, 42, 1]

const load = async (dir: string, options: HuggingFace.LoadOptions = {}): Promise<Policy.Policy> => {
  const loaded = await HuggingFace.load(dir, options)()
  if (loaded._tag === 'Left') throw new Error(JSON.stringify(loaded.left))
  return loaded.right
}

const logitsOf = (policy: Policy.Policy): Float32Array =>
  tf.tidy(() => Policy.logits(policy)(tf.tensor2d([ids], [1, ids.length], 'int32')).dataSync() as Float32Array)

const maxDiff = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  expect(a.length).toBe(b.length)
  let worst = 0
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i]! - b[i]!))
  return worst
}

/** Each family with a trained adapter (B drawn Normal(0, 0.3)), exported; its logits before export. */
const exported = new Map<string, Float32Array>()

beforeAll(async () => {
  await TestBackend.use('cpu')
  for (const name of families) {
    const policy = await load(join(fixtures, name), { lora: { ...Lora.defaultOptions, rank: 2 } })
    tf.tidy(() => Object.entries(policy.variables).forEach(([n, v]) => n.includes('lora_B') && v.assign(tf.randomNormal(v.shape, 0, 0.3, 'float32', 3))))
    exported.set(name, logitsOf(policy))
    const saved = await _.save(join(scratch, name), policy)()
    if (saved._tag === 'Left') throw new Error(JSON.stringify(saved.left))
    policy.dispose()
  }
})

describe('Export', () => {
  it('writes each family with its LoRA merged: mtrl reloads the folder (no adapters) with the same logits', async () => {
    for (const name of families) {
      const again = await load(join(scratch, name))
      expect(again.lora).toBeUndefined()
      // relative to the logits' size: the adapted model runs x W + s (x A) B, the export x (W + s B A)
      const before = exported.get(name)!
      const top = Math.max(1, ...Array.from(before, Math.abs))
      await expectNoLeak(() => expect(maxDiff(logitsOf(again), before) / top, name).toBeLessThan(3e-5))
      again.dispose()
    }
    // Phi-3 is written with its fused projections, as transformers names them
    const header = readFileSync(join(scratch, 'tiny-phi3', 'model.safetensors'))
    expect(header.toString('utf8', 8, 8 + Number(header.readBigUInt64LE(0)))).toMatch(/qkv_proj.*gate_up_proj|gate_up_proj.*qkv_proj/)
  })

  it.runIf(transformers)(
    `transformers loads every exported folder and computes the same logits ${Services.tag('python-transformers')}`,
    () => {
      const script = `
import json, sys, torch, transformers
out = {}
for name in sys.argv[2].split(","):
    model = transformers.AutoModelForCausalLM.from_pretrained(sys.argv[1] + "/" + name, dtype=torch.float32, attn_implementation="eager").eval()
    with torch.no_grad():
        out[name] = model(torch.tensor([json.loads(sys.argv[3])])).logits[0].flatten().tolist()
print(json.dumps(out))
`
      const out = JSON.parse(
        execFileSync('python3', ['-c', script, scratch, families.join(','), JSON.stringify(ids)], { encoding: 'utf8', timeout: 300_000 })
      ) as Record<string, number[]>
      for (const name of families) expect(maxDiff(out[name]!, exported.get(name)!), name).toBeLessThan(1e-4)
    },
    300_000
  )

  it('refuses a model without a Hugging Face layout or tokenizer, saying why', () => {
    const policy = Policy.make(ModelConfig.make({ vocab: 32, dModel: 16, layers: 1, heads: 2, canonSpan: 2 }), 0)
    const refused = _.files(policy)
    expect(refused._tag === 'Left' && refused.left).toMatch(/tokenizer/)
    expect(_.familyFor(policy.config)).toEqual({ _tag: 'Left', left: 'the model has canon layers (decision 0007)' })
    expect(_.familyFor({ ...policy.config, canonSpan: 0 })._tag).toBe('Right')
    policy.dispose()
  })
})
