import * as E from 'fp-ts/lib/Either.js'
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Recipe.js'
import { Config } from '@mtrl/trainer-rl'

const recipes = join(__dirname, '..', '..', '..', 'recipes')
const good = {
  name: 't',
  stages: [
    { kind: 'sft', env: { kind: 'textworld', settings: 'w2-o3-q4' }, episodes: 10 },
    { kind: 'rl', env: { kind: 'textworld', settings: 'w2-o3-q4' }, iterations: 3, algorithm: 'grpo', budget: { groupSize: 4 } }
  ]
}
const withRlDecoded = (patch: object): string => error({ ...good, stages: [good.stages[0], { ...good.stages[1], ...patch }] })
const error = (json: unknown): string => {
  const r = _.decode(json)
  return E.isLeft(r) ? r.left : 'decoded'
}

const sft = good.stages[0]!
const rl = good.stages[1]!
/** The first line of the message after `invalid recipe:`. */
const firstLine = (json: unknown): string => error(json).split('\n')[1]?.trim() ?? error(json)

describe('Recipe errors: the first line of each message says what is wrong and what would do', () => {
  it.each([
    [
      'a stage without env',
      { ...good, stages: [{ kind: 'sft', episodes: 10 }] },
      'stages.0.env: missing; one of textworld | alfworld | swe | http (the field "kind" decides)'
    ],
    [
      'an env of an unknown kind',
      { ...good, stages: [{ ...sft, env: { kind: 'babyai' } }] },
      'stages.0.env.kind: expected one of textworld | alfworld | swe | http, got "babyai"'
    ],
    [
      'an env without its kind',
      { ...good, stages: [{ ...sft, env: { settings: 'w2-o3-q4' } }] },
      'stages.0.env.kind: missing; one of textworld | alfworld | swe | http (the field that decides the rest)'
    ],
    [
      'textworld without settings',
      { ...good, stages: [{ ...sft, env: { kind: 'textworld' } }] },
      'stages.0.env.settings: missing; expected a setting name such as "w2-o3-q4" or "tw-simple"'
    ],
    ['a model of an unknown kind', { ...good, model: { kind: 'scratchy' } }, 'model.kind: expected one of scratch | hf | checkpoint | base, got "scratchy"'],
    ['an hf model without its path', { ...good, model: { kind: 'hf' } }, 'model.path: missing; expected string'],
    ['a stage of an unknown kind', { ...good, stages: [{ ...rl, kind: 'dpo' }] }, 'stages.0.kind: expected one of sft | rl | pretrain, got "dpo"'],
    ['a misspelt stage field', { ...good, stages: [sft, { ...rl, iteratons: 3 }] }, 'stages.1.iteratons: unknown field (did you mean "iterations"?)'],
    ['a misspelt top-level field', { ...good, sed: 3 }, 'sed: unknown field (did you mean "seed"?)'],
    ['a negative budget', { ...good, stages: [sft, { ...rl, iterations: -3 }] }, 'stages.1.iterations: expected a positive integer, got -3'],
    [
      'a judge without an agent',
      { ...good, stages: [sft, { ...rl, judge: { url: 'http://127.0.0.1:8001/v1', model: 'judge' } }] },
      'stages.1.judge: a judge scores the runs of an agent written as code: give "agent" too'
    ],
    [
      'a judge beside a reward',
      { ...good, stages: [sft, { ...rl, agent: 'a.ts', reward: { kind: 'outcome' }, judge: { url: 'http://127.0.0.1:8001/v1', model: 'judge' } }] },
      "stages.1.reward: expected no reward with a judge: the judge's scores are the runs' rewards"
    ],
    ['a pretrain stage without episodes', { ...good, stages: [{ kind: 'pretrain' }] }, 'stages.0.episodes: missing; expected a positive integer'],
    [
      'a pretrain stage with an invalid share of 1',
      { ...good, stages: [{ kind: 'pretrain', episodes: 10, invalidShare: 1 }] },
      'stages.0.invalidShare: expected a number in [0, 1), got 1'
    ],
    [
      'a pretrain mixture with rooms out of range',
      { ...good, stages: [{ kind: 'pretrain', episodes: 10, mixture: [{ kind: 'textworld', rooms: [0, 8], objects: [1, 12], questLength: [1, 8] }] }] },
      'stages.0.mixture.0.rooms.0: expected rooms from 1 to 12, got 0'
    ],
    [
      'a pretrain mixture entry of an unknown kind',
      { ...good, stages: [{ kind: 'pretrain', episodes: 10, mixture: [{ kind: 'swe' }] }] },
      'stages.0.mixture.0.kind: expected one of textworld | cooking | alfworld, got "swe"'
    ],
    [
      'an empty pretrain mixture',
      { ...good, stages: [{ kind: 'pretrain', episodes: 10, mixture: [] }] },
      'stages.0.mixture: expected at least one entry, got []'
    ],
    [
      'a misspelt pretrain field',
      { ...good, stages: [{ kind: 'pretrain', episodes: 10, epocs: 2 }] },
      'stages.0.epocs: unknown field (did you mean "epochs"?)'
    ],
    ['a base model without its path', { ...good, model: { kind: 'base' } }, 'model.path: missing; expected string'],
    [
      'a judge without its model',
      { ...good, stages: [sft, { ...rl, agent: 'a.ts', judge: { url: 'http://127.0.0.1:8001/v1' } }] },
      'stages.1.judge.model: missing; expected string'
    ]
  ])('%s', (_label, recipe, line) => {
    expect(firstLine(recipe)).toBe(line)
  })
})

describe('Recipe', () => {
  it('decodes a good recipe and fills the defaults', () => {
    const r = _.decode(good)
    expect(E.isRight(r)).toBe(true)
    if (E.isRight(r)) {
      expect(r.right.model.kind).toBe('scratch')
      expect(r.right.eval.episodes).toBe(100)
      expect(r.right.eval.envs).toEqual([{ kind: 'textworld', settings: { _tag: 'custom', rooms: 2, objects: 3, questLength: 4 } }])
    }
  })

  it('evaluates before training as it evaluates after each stage, unless told otherwise', () => {
    const phases = (extra: Record<string, unknown>) => {
      const r = _.decode({ ...good, ...extra })
      return E.isRight(r) ? [r.right.evalAfterEachStage, r.right.evalBeforeTraining] : r.left
    }
    expect(phases({})).toEqual([true, true])
    expect(phases({ evalAfterEachStage: false })).toEqual([false, false])
    expect(phases({ evalBeforeTraining: false })).toEqual([true, false])
    expect(phases({ evalAfterEachStage: false, evalBeforeTraining: true })).toEqual([false, true])
    expect(error({ ...good, evalBeforeTraining: 'no' })).toMatch(/evalBeforeTraining: expected boolean, got "no"/)
  })

  it('rejects a wrong type, naming the field', () => {
    expect(error({ ...good, seed: 'one' })).toMatch(/seed: expected a non-negative integer, got "one"/)
  })

  it('rejects an unknown estimator, naming the field', () => {
    const bad = { ...good, stages: [good.stages[0], { ...good.stages[1], advantage: { estimator: 'ppo-magic' } }] }
    expect(error(bad)).toMatch(/stages\.1\.advantage\.estimator/)
  })

  it('rejects a negative budget', () => {
    const bad = { ...good, stages: [good.stages[0], { ...good.stages[1], iterations: -5 }] }
    expect(error(bad)).toMatch(/stages\.1\.iterations: expected a positive integer, got -5/)
  })

  it('rejects a missing environment', () => {
    const { env: _env, ...noEnv } = good.stages[1]!
    expect(error({ ...good, stages: [good.stages[0], noEnv] })).toMatch(/stages\.1\.env/)
  })

  it('rejects an unknown environment setting string', () => {
    const bad = { ...good, stages: [{ ...good.stages[0], env: { kind: 'textworld', settings: 'w2-o3' } }] }
    expect(error(bad)).toMatch(/stages\.0\.env/)
  })

  it('rejects unknown fields (typos are errors)', () => {
    expect(error({ ...good, stages: [{ ...good.stages[0], epocs: 3 }] })).toMatch(/stages\.0\.epocs: unknown field/)
  })

  it('needs at least one stage, and demonstrations for SFT', () => {
    expect(error({ ...good, stages: [] })).toMatch(/at least one stage/)
    expect(error({ ...good, stages: [{ kind: 'sft', env: { kind: 'textworld', settings: 'w2-o3-q4' } }] })).toMatch(/episodes/)
  })

  it('checks the whole recipe up front, RL numbers and estimator options included, naming the field', () => {
    const rl = good.stages[1]!
    const withRl = (patch: object) => error({ ...good, stages: [good.stages[0], { ...rl, ...patch }] })
    expect(withRl({ budget: { groupSize: -4 } })).toMatch(/stages\.1\.budget\.groupSize: expected a positive integer, got -4/)
    expect(withRl({ policy: { lr: 0 } })).toMatch(/stages\.1\.policy\.lr: expected a positive number, got 0/)
    expect(withRl({ rollout: { maxNewTokens: 0 } })).toMatch(/stages\.1\.rollout\.maxNewTokens: expected a positive integer, got 0/)
    expect(withRl({ kl: { estimator: 'k3', placement: 'loss', controller: { _tag: 'fixed', coef: -1 } } })).toMatch(/stages\.1\.kl\.controller\.coef/)
    expect(withRl({ advantage: { options: { normalizeByStd: 'yes' } } })).toMatch(/stages\.1\.advantage\.options\.normalizeByStd/)
    expect(withRl({ algorithm: 'rloo', budget: { groupSize: 1 } })).toMatch(/stages\.1\.budget\.groupSize: expected at least 2 for rloo/)
    expect(error({ ...good, rollout: { topP: 1.5 } })).toMatch(/rollout\.topP: expected a number in \(0, 1\], got 1\.5/)
    expect(withRl({ replicas: 0 })).toMatch(/stages\.1\.replicas: expected a positive integer, got 0/)
    expect(withRl({ replay: { share: 1.5, attempts: 2 } })).toMatch(/stages\.1\.replay\.share: expected a number in \[0, 1\], got 1\.5/)
    // a slice's fields are each optional: the others keep the library's defaults
    expect(withRl({ replay: { share: 0.25 } })).toBe('decoded')
    expect(_.trainerConfig({ ...rl, replay: { share: 0.25 } } as _.RlStage, {} as never, 0).replay).toEqual({ ...Config.defaultConfig.replay, share: 0.25 })
    expect(withRl({ replay: { share: 0.25, attemps: 2 } })).toMatch(/stages\.1\.replay\.attemps: unknown field \(did you mean "attempts"\?\)/)
    expect(withRl({ replay: { share: 0.25, attempts: 2 } })).toBe('decoded')
    expect(withRl({ policy: { minLrRatio: 1.5 } })).toMatch(/stages\.1\.policy\.minLrRatio: expected a number in \[0, 1\], got 1\.5/)
    // the learning-rate decay fills decayIterations with the stage's iterations (3): no room after a warm-up of 3
    expect(withRl({ policy: { minLrRatio: 0.1, warmupIterations: 3 } })).toMatch(
      /stages\.1\.policy\.decayIterations: expected more than warmupIterations \(3\)/
    )
    expect(withRl({ budget: { groupSize: 4 }, selection: { keepPerGroup: 5 } })).toMatch(
      /stages\.1\.selection\.keepPerGroup: expected at most budget\.groupSize \(4\)/
    )
    expect(withRl({ budget: { groupSize: 4 }, selection: { keepPerGroup: 2 } })).toBe('decoded')
    expect(withRl({ selection: { oversample: 2 } })).toMatch(/stages\.1\.selection\.oversample: expected 1 unless filterZeroVariance is on/)
    expect(withRl({ rollout: { exploreRate: 1.5 } })).toMatch(/stages\.1\.rollout\.exploreRate: expected a number in \[0, 1\], got 1\.5/)
    expect(withRl({ loss: { exploredCredit: 'all' } })).toMatch(/stages\.1\.loss\.exploredCredit/)
    expect(withRl({ rollout: { exploreRate: 0.1 }, loss: { exploredCredit: 'signed' } })).toBe('decoded')
  })

  it('a field of the flat RL configuration (before 0.6) says where it moved', () => {
    const withRl = (patch: object) => error({ ...good, stages: [good.stages[0], { ...rl, ...patch }] })
    expect(withRl({ policyLr: 1e-3 })).toContain(
      'stages.1.policyLr: unknown field: the RL stage\'s configuration is nested by stage of the iteration; this is now "stages.1.policy.lr"'
    )
    expect(withRl({ ppoEpochs: 2, criticWarmup: 1 })).toMatch(
      /stages\.1\.ppoEpochs: .*"stages\.1\.update\.epochs"[\s\S]*stages\.1\.criticWarmup: .*"stages\.1\.critic\.warmup"/
    )
    expect(withRl({ loss: { clipHigh: 0.28 } })).toContain(
      'stages.1.loss.clipHigh: unknown field: the policy loss\'s clip is one of its options; this is now "stages.1.loss.options.clipHigh"'
    )
    expect(withRl({ algorithm: 'grpo', loss: { options: { clipHigh: 0.28 } } })).toBe('decoded')
    // every moved field names a field of the nested configuration
    for (const [flat, nested] of Object.entries(_.movedFields)) {
      const [slice, field] = nested.split('.') as [string, string]
      expect(Object.keys((Config.defaultConfig as unknown as Record<string, Record<string, unknown>>)[slice]!), flat).toContain(field)
    }
  })

  it("one function gives an RL stage's resolved trainer configuration and its algorithm (the trainer's default when the stage names none)", () => {
    const rl = { ...good.stages[1]!, algorithm: 'grpo' } as _.RlStage
    const grpo = _.resolvedTrainer(rl)
    expect(grpo.config.loss).toMatchObject({ aggregation: 'seq-mean-token-mean', policyLoss: 'policyGradient' })
    expect(grpo.config.kl.placement).toBe('loss')
    expect(grpo.algorithm.critic).toBe(false)
    const { algorithm: _unset, ...unnamed } = rl
    expect(_.stageAlgorithm(unnamed as _.RlStage)).toMatchObject({ name: Config.defaultConfig.algorithm, critic: true })
    expect(_.resolvedTrainer({ ...rl, algorithm: 'gspo', loss: { options: { clipHigh: 1e-3 } } }).config.loss).toMatchObject({
      policyLoss: 'gspo',
      options: { clipHigh: 1e-3 }
    })
  })

  it('an RL stage decays its learning rate over its own iterations unless told otherwise', () => {
    const rl = { ...good.stages[1]!, iterations: 40, policy: { minLrRatio: 0.1 } } as _.RlStage
    expect(_.trainerConfig(rl, {} as never, 0).policy).toEqual({ ...Config.defaultConfig.policy, minLrRatio: 0.1, decayIterations: 40 })
    expect(_.trainerConfig({ ...rl, policy: { minLrRatio: 0.1, decayIterations: 25 } }, {} as never, 0).policy.decayIterations).toBe(25)
    expect(withRlDecoded({ policy: { minLrRatio: 0.1 } })).toBe('decoded')
  })

  it('RL update replicas need a separate critic when the algorithm trains one', () => {
    const rl = { ...good.stages[1]!, algorithm: 'ppo', budget: { groupSize: 1 }, replicas: 2 }
    const shared = { ...good, critic: { shareTrunk: true } }
    expect(error({ ...shared, stages: [good.stages[0], rl] })).toMatch(/stages\.1\.replicas: expected 1 with a critic that shares the policy trunk .*got 2/)
    expect(error({ ...good, stages: [good.stages[0], rl] })).toBe('decoded')
    // a critic-free algorithm has no critic to share
    expect(error({ ...shared, stages: [good.stages[0], { ...rl, algorithm: 'grpo', budget: { groupSize: 4 } }] })).toBe('decoded')
  })

  it("RL rollout threads play the stage's own episodes: not with an agent written as code nor with scale-out workers", () => {
    const rl = { ...good.stages[1]!, rolloutThreads: 2 }
    expect(error({ ...good, stages: [good.stages[0], rl] })).toBe('decoded')
    expect(error({ ...good, stages: [good.stages[0], { ...rl, rolloutThreads: 0 }] })).toMatch(/stages\.1\.rolloutThreads: expected a positive integer, got 0/)
    expect(error({ ...good, stages: [good.stages[0], { ...rl, agent: 'agents/play.ts' }] })).toMatch(
      /stages\.1\.rolloutThreads: expected 1 with an agent written as code .*got 2/
    )
    expect(error({ ...good, stages: [good.stages[0], rl], scaleOut: { workers: 2 } })).toMatch(/stages\.1\.rolloutThreads: expected 1 with scaleOut .*got 2/)
    expect(error({ ...good, stages: [good.stages[0], rl], scaleOut: { redis: 'redis://127.0.0.1:6379' } })).toMatch(
      /stages\.1\.rolloutThreads: expected 1 with scaleOut/
    )
    expect(error({ ...good, stages: [good.stages[0], { ...rl, rolloutThreads: 1 }], scaleOut: { workers: 2 } })).toBe('decoded')
    expect(_.trainerConfig(rl as _.RlStage, {} as never, 0)).not.toHaveProperty('rolloutThreads')
  })

  it("RL playing ahead (maxStaleness) is for the trainer's own episodes: not with an agent written as code", () => {
    const rl = { ...good.stages[1]!, maxStaleness: 1 }
    expect(error({ ...good, stages: [good.stages[0], rl] })).toBe('decoded')
    expect(error({ ...good, stages: [good.stages[0], { ...rl, maxStaleness: -1 }] })).toMatch(
      /stages\.1\.maxStaleness: expected a non-negative integer, got -1/
    )
    expect(error({ ...good, stages: [good.stages[0], { ...rl, agent: 'agents/play.ts' }] })).toMatch(
      /stages\.1\.maxStaleness: expected 0 with an agent written as code .*got 1/
    )
    expect(error({ ...good, stages: [good.stages[0], rl], scaleOut: { workers: 2 } })).toBe('decoded')
    expect(_.trainerConfig(rl as _.RlStage, {} as never, 0).maxStaleness).toBe(1)
    expect(_.trainerConfig(good.stages[1] as _.RlStage, {} as never, 0).maxStaleness).toBe(0)
  })

  it("an SFT stage's `until` checks the trained weights, so it refuses a weight average", () => {
    const until = { ...good.stages[0], until: { success: 0.3, every: 20 } }
    expect(error({ ...good, stages: [until] })).toBe('decoded')
    expect(error({ ...good, stages: [{ ...until, emaDecay: 0.99 }] })).toMatch(
      /stages\.0\.until: expected no weight average \(emaDecay 0\).*got emaDecay 0\.99/
    )
    expect(error({ ...good, stages: [{ ...until, until: { success: 1.5, every: 20 } }] })).toMatch(/stages\.0\.until\.success/)
    expect(error({ ...good, stages: [{ ...until, until: { success: 0.3 } }] })).toMatch(/stages\.0\.until\.every/)
  })

  it("the default evaluation environment is the last stage's (the target of a curriculum)", () => {
    const curriculum = {
      name: 'c',
      stages: [
        { ...good.stages[0], env: { kind: 'textworld', settings: 'w1-o2-q2' } },
        { ...good.stages[1], env: { kind: 'alfworld', settings: {} } }
      ]
    }
    const r = _.decode(curriculum)
    expect(E.isRight(r) && r.right.eval.envs).toEqual([{ kind: 'alfworld', settings: {} }])
  })

  it('a checkpoint model takes no lora (it was silently ignored)', () => {
    expect(error({ ...good, model: { kind: 'checkpoint', path: 'x', lora: { rank: 4 } } })).toMatch(/model\.lora/)
    expect(E.isRight(_.decode({ ...good, model: { kind: 'hf', path: 'x', lora: { rank: 4 }, maxLen: 1024 } }))).toBe(true)
  })

  it('a pretrain stage decodes with its settings, plays no environment of its own, and is not evaluated on one', () => {
    const r = _.decode({
      name: 'b',
      model: { kind: 'scratch', dModel: 32 },
      stages: [{ kind: 'pretrain', episodes: 100, invalidShare: 0.2, maxTurns: 12, mixture: [{ kind: 'cooking', weight: 2 }], epochs: 2, replicas: 2 }]
    })
    if (E.isLeft(r)) throw new Error(r.left)
    const [stage] = r.right.stages
    expect(stage).toEqual({
      kind: 'pretrain',
      episodes: 100,
      invalidShare: 0.2,
      maxTurns: 12,
      mixture: [{ kind: 'cooking', weight: 2 }],
      epochs: 2,
      replicas: 2
    })
    expect(_.stageEnv(stage!)).toBeUndefined()
    expect(r.right.eval.envs).toEqual([])
    // a later pretrain stage, or one with a base, keeps its model's tokenizer
    expect(E.isRight(_.decode({ ...good, model: { kind: 'scratch', corpusEpisodes: 100 }, stages: [sft, { kind: 'pretrain', episodes: 10 }] }))).toBe(true)
    // the resolved recipe a run saves (recipe.json, read back by mtrl resume and mtrl eval) decodes to itself
    const base = _.decode(JSON.parse(readFileSync(join(recipes, 'base.json'), 'utf8')))
    if (E.isLeft(base)) throw new Error(base.left)
    expect(_.decode(JSON.parse(JSON.stringify(base.right)))).toEqual(base)
    expect(E.isRight(_.decode({ ...good, model: { kind: 'base', path: 'runs/base' }, stages: [{ kind: 'pretrain', episodes: 10 }, sft] }))).toBe(true)
  })

  it('every recipe shipped in recipes/ decodes', () => {
    const files = [
      ...readdirSync(recipes)
        .filter((f) => f.endsWith('.json'))
        .map((f) => join(recipes, f)),
      ...readdirSync(join(recipes, 'paper'))
        .filter((f) => f.endsWith('.json'))
        .map((f) => join(recipes, 'paper', f)),
      ...['agents', 'paper-base'].flatMap((dir) =>
        readdirSync(join(recipes, dir))
          .filter((f) => f.endsWith('.json'))
          .map((f) => join(recipes, dir, f))
      )
    ]
    expect(files.length).toBeGreaterThan(1)
    for (const file of files) {
      const r = _.decode(JSON.parse(readFileSync(file, 'utf8')))
      expect(E.isLeft(r) ? `${file}: ${r.left}` : 'ok').toBe('ok')
    }
  })
})

describe('paper recipes', () => {
  it('every ablation cell of every shipped recipe decodes', async () => {
    const files = [
      ...readdirSync(join(recipes, 'paper')).map((f) => join('paper', f)),
      // paper-base holds single recipes too; its grids are those with an ablation
      ...readdirSync(join(recipes, 'paper-base'))
        .filter((f) => f.endsWith('.json') && 'ablation' in JSON.parse(readFileSync(join(recipes, 'paper-base', f), 'utf8')))
        .map((f) => join('paper-base', f))
    ].filter((f) => f.endsWith('.json'))
    expect(files.filter((f) => f.startsWith('paper-base')).length).toBeGreaterThan(0)
    for (const file of files) {
      const json = JSON.parse(readFileSync(join(recipes, file), 'utf8'))
      const planned = _.ablationPlan(json, json.ablation?.grid ?? {}, json.ablation?.seeds ?? [1])
      expect(E.isLeft(planned) ? `${file}: ${planned.left}` : 'ok').toBe('ok')
      if (E.isRight(planned)) expect(planned.right.length).toBeGreaterThan(1)
    }
  })
})
