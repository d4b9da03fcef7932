/**
 * The mtrl side of `npm run bench:real-size` (see realSize.bench.ts, which starts it, watches
 * its memory and prints it beside PyTorch): a Hugging Face folder loaded with LoRA rank 16 on
 * the attention and MLP projections, then
 * - SFT: LoRA training steps (forward, backward, Adam) on BATCH x SEQ tokens, tokens/s;
 * - sampling: a SAMPLE_PROMPT-token prompt then NEW tokens at temperature 1, batch 1 and batch 16,
 *   generated tokens/s (prefill timed apart);
 * - RL: one GRPO iteration of the RL trainer (`Trainer.iterate`: rollout, old log-probs, one
 *   update) on EPISODES episodes (groups of 4) x TURNS turns of a synthetic environment whose
 *   first observation is about PROMPT tokens, NEW new tokens a turn.
 * Each result is one JSON line on stdout (`{"mtrl": ...}`); progress goes to stderr.
 *
 *   npx tsx --conditions=@mtrl/source apps/mtrl/bench/realSize.mtrl.ts DIR '{"phases":["sft","sample","rl"],...}'
 */
import { Backend } from '@mtrl/backend'
import { Rng, type Env } from '@mtrl/core'
import { Backprop } from '@mtrl/optim'
import { Agent, Policy, Sampler, Scoring } from '@mtrl/policy'
import { Config, Kl, Trainer } from '@mtrl/trainer-rl'
import * as tf from '@tensorflow/tfjs'
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import * as T from 'fp-ts/lib/Task.js'

export interface Shape {
  readonly phases: ReadonlyArray<'sft' | 'sample' | 'rl'>
  readonly batch: number
  readonly seq: number
  readonly sftSteps: number
  readonly prompt: number
  /** The sampling phase's prompt length. */
  readonly samplePrompt: number
  readonly newTokens: number
  readonly episodes: number
  readonly turns: number
  readonly microBatchTokens: number
  /** The sampling phase's weight layout (`Decoder.Layout`; default: the decoder's own choice). */
  readonly weights?: 'copy' | 'shared'
  /** SFT steps and the GRPO update with gradient checkpointing (`Scoring.Options.recompute`, `Config.update.recompute`). */
  readonly recompute?: boolean
}

const [dir, shapeArg] = process.argv.slice(2)
if (dir === undefined || shapeArg === undefined) throw new Error('usage: realSize.mtrl.ts DIR SHAPE_JSON')
const shape = JSON.parse(shapeArg) as Shape
const emit = (result: Record<string, unknown>): void => void process.stdout.write(`${JSON.stringify({ mtrl: result })}\n`)
const log = (line: string): void => void process.stderr.write(`[mtrl] ${line}\n`)
const seconds = (start: number): number => (performance.now() - start) / 1000
/** CPU seconds of this process (all threads) since `start` (a `process.cpuUsage()`). */
const cpuSince = (start: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(start)
  return (used.user + used.system) / 1e6
}
const peakGiB = (): number => process.resourceUsage().maxRSS / 2 ** 20

const selected = await Backend.selectFromEnvironment()()
if (E.isLeft(selected)) throw new Error(Backend.message(selected.left))
const lora = { rank: 16, alpha: 32, targets: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] as const }
const contextLength = Math.max(shape.seq, shape.prompt + shape.turns * (shape.newTokens + 40)) + 16
const t0 = performance.now()
const loaded = await Agent.pretrained(dir, { lora, maxLen: contextLength })()
if (E.isLeft(loaded)) throw new Error(JSON.stringify(loaded.left))
const agent = loaded.right
const policy = agent.policy
emit({ phase: 'load', seconds: seconds(t0), backend: selected.right.name, threads: selected.right.threads, peakGiB: peakGiB() })
log(`loaded in ${seconds(t0).toFixed(1)} s on ${selected.right.name}`)

/** SFT steps on random tokens: -mean log-prob, gradients of the adapters as the trainers take them, Adam written as the trainers write it. */
const sft = (): void => {
  const vars = Policy.trainableVariables(policy)
  const rng = Rng.make(0)
  const V = policy.config.vocab
  const ids = tf.tensor2d(
    Int32Array.from({ length: shape.batch * shape.seq }, () => rng.int(V)),
    [shape.batch, shape.seq],
    'int32'
  )
  const m = vars.map((w) => tf.variable(tf.zerosLike(w), false))
  const v = vars.map((w) => tf.variable(tf.zerosLike(w), false))
  const loss = (): tf.Scalar =>
    tf.tidy(() => tf.neg(tf.mean(Scoring.tokenLogprobs(policy, { entropy: false, recompute: shape.recompute === true })(ids).logprobs)) as tf.Scalar)
  const step = (): number => {
    // the gradient walk the trainers take (`Optimizer.gradients`)
    const { value, grads } = Backprop.variableGrads(loss, vars)
    tf.tidy(() =>
      vars.forEach((w, i) => {
        const g = grads[w.name]!
        const mi = tf.add(tf.mul(m[i]!, 0.9), tf.mul(g, 0.1))
        const vi = tf.add(tf.mul(v[i]!, 0.999), tf.mul(tf.square(g), 0.001))
        m[i]!.assign(mi)
        v[i]!.assign(vi)
        w.assign(tf.sub(w, tf.mul(tf.div(mi, tf.add(tf.sqrt(vi), 1e-8)), 1e-4)))
      })
    )
    const out = value.dataSync()[0]!
    tf.dispose([value, ...Object.values(grads)])
    return out
  }
  const times: number[] = []
  const cpus: number[] = []
  for (let i = 0; i <= shape.sftSteps; i++) {
    const start = performance.now()
    const cpu = process.cpuUsage()
    const l = step()
    times.push(seconds(start))
    cpus.push(cpuSince(cpu))
    log(`sft step ${i}${i === 0 ? ' (warm-up)' : ''}: ${times[i]!.toFixed(1)} s, loss ${l.toFixed(3)}`)
  }
  tf.dispose([ids, ...m, ...v])
  const timed = times.slice(1)
  const mean = timed.reduce((a, b) => a + b, 0) / timed.length
  const cpuMean = cpus.slice(1).reduce((a, b) => a + b, 0) / timed.length
  emit({
    phase: 'sft',
    tokensPerSecond: (shape.batch * shape.seq) / mean,
    tokensPerCpuSecond: (shape.batch * shape.seq) / cpuMean,
    stepSeconds: mean,
    warmupSeconds: times[0],
    peakGiB: peakGiB()
  })
}

/** A PROMPT-token prompt per slot, then NEW tokens at temperature 1 (no stop token), at batch 1 then 16. */
const sample = (): void => {
  const V = policy.config.vocab
  const session = Sampler.make(policy, {
    slots: 16,
    maxLen: shape.samplePrompt + shape.newTokens + 1,
    ...(shape.weights === undefined ? {} : { weights: shape.weights })
  })
  const rng = Rng.make(1)
  // the decode-layout weights are made on the first feed: not timed
  const warm = performance.now()
  session.append([0], [Int32Array.of(1)])
  log(`decode-layout weights made in ${seconds(warm).toFixed(1)} s`)
  for (const batch of [1, 16]) {
    const slots = Array.from({ length: batch }, (_, i) => i)
    slots.forEach((s) => session.reset(s))
    const prompts = slots.map(() => Int32Array.from({ length: shape.samplePrompt }, () => rng.int(V)))
    let start = performance.now()
    session.append(slots, prompts)
    const prefill = seconds(start)
    start = performance.now()
    const cpu = process.cpuUsage()
    const out = session.generate(slots, { maxNewTokens: shape.newTokens, temperature: 1, stopTokens: [], rng })
    const gen = seconds(start)
    const genCpu = cpuSince(cpu)
    const tokens = out.reduce((a, g) => a + g.tokens.length, 0)
    log(`sampling batch ${batch}: prefill ${prefill.toFixed(1)} s, ${tokens} tokens in ${gen.toFixed(1)} s`)
    emit({
      phase: `sample${batch}`,
      tokensPerSecond: tokens / gen,
      tokensPerCpuSecond: tokens / genCpu,
      prefillSeconds: prefill,
      generateSeconds: gen,
      peakGiB: peakGiB()
    })
  }
  session.dispose()
}

/** Words drawn from a fixed list by the seed: the environment's observations. */
const words = 'north south east west door key chest table lamp room kitchen hall open take go the a and of to'.split(' ')
const text = (seed: number, tokens: number): string => {
  const rng = Rng.make(seed)
  const out: string[] = []
  // the folder's tokenizer decides how many words make `tokens` tokens
  while (agent.tokenizer.encode(out.join(' ')).length < tokens) out.push(words[rng.int(words.length)]!)
  return out.join(' ')
}

/** A synthetic TURNS-turn environment: a ~PROMPT-token first observation, short later ones, a reward by the actions' hash. */
const syntheticEnv = (): Env.Env => {
  let seed = 0
  let turn = 0
  let hash = 0
  const obs = (goal: string, body: string): Env.Observation => ({ goal, text: body, info: { valid: true, score: 0, maxScore: 1 } })
  return {
    spec: { name: 'synthetic', maxTurns: shape.turns, actionFormat: 'free text' },
    reset: (s) => {
      seed = s
      turn = 0
      hash = s
      return TE.right(obs('find the key', text(s, shape.prompt - 20)))
    },
    step: (action) => {
      turn++
      for (let i = 0; i < action.length; i++) hash = (hash * 31 + action.charCodeAt(i)) >>> 0
      const done = turn >= shape.turns
      return TE.right({
        observation: text(seed * 100 + turn, 30),
        reward: done ? (hash % 1000) / 1000 : 0,
        done,
        won: false,
        info: { valid: true, score: 0, maxScore: 1 }
      })
    },
    close: () => T.of(undefined)
  }
}

const rl = async (): Promise<void> => {
  const groupSize = 4
  const config = Config.make({
    algorithm: 'grpo',
    budget: { seedsPerIteration: Math.max(1, Math.round(shape.episodes / groupSize)), groupSize },
    rollout: { maxTurns: shape.turns, maxNewTokens: shape.newTokens, temperature: 1, systemPrompt: '' },
    kl: Kl.none,
    loss: { aggregation: 'token-mean' },
    update: { epochs: 1, minibatches: 1, microBatchTokens: shape.microBatchTokens, maxGradNorm: 1, recompute: shape.recompute === true },
    priorKlEvery: 0,
    seed: 1
  })
  const slots = config.budget.seedsPerIteration * groupSize
  const trainer = Trainer.make({
    config,
    policy,
    envs: Array.from({ length: slots }, syntheticEnv),
    template: agent.template,
    tokenizer: agent.tokenizer,
    contextLength
  })
  const start = performance.now()
  const cpu = process.cpuUsage()
  const metrics = await Trainer.iterate(trainer)()
  const total = seconds(start)
  const totalCpu = cpuSince(cpu)
  if (E.isLeft(metrics)) throw new Error(JSON.stringify(metrics.left))
  const m = metrics.right
  await Trainer.settle(trainer)
  trainer.dispose()
  log(`GRPO iteration: ${total.toFixed(1)} s (rollout ${m['time/rollout_s'].toFixed(1)} s, update ${m['time/update_s'].toFixed(1)} s)`)
  emit({
    phase: 'rl',
    episodes: slots,
    seconds: total,
    cpuSeconds: totalCpu,
    rolloutSeconds: m['time/rollout_s'],
    updateSeconds: m['time/update_s'],
    generatedTokensPerSecond: m['perf/tokens_per_s'],
    peakGiB: peakGiB()
  })
}

if (shape.phases.includes('sft')) sft()
if (shape.phases.includes('sample')) sample()
if (shape.phases.includes('rl')) await rl()
policy.dispose()
