/**
 * @mtrl/trainer-rl: multi-turn RL for language-model agents: PPO, GRPO, RLOO, REINFORCE++,
 * GSPO, CISPO losses (a registry, `PolicyLoss`), loss aggregation, KL to a reference, critic, one-iteration `iterate`, checkpoints, a stage's driver.
 *
 * @since 0.1.0
 */
export * as Aggregation from './Aggregation.js'
export * as BackendParity from './BackendParity.js'
export * as Algorithm from './Algorithm.js'
export * as Checkpointing from './Checkpointing.js'
export * as Cispo from './Cispo.js'
export * as Config from './Config.js'
export * as Driver from './Driver.js'
export * as Groups from './Groups.js'
export * as Gspo from './Gspo.js'
export * as ImportanceSampling from './ImportanceSampling.js'
export * as Kl from './Kl.js'
export * as KlController from './KlController.js'
export * as Metrics from './Metrics.js'
export * as PolicyGradient from './PolicyGradient.js'
export * as PolicyLoss from './PolicyLoss.js'
export * as Ppo from './Ppo.js'
export * as Replay from './Replay.js'
export * as Trainer from './Trainer.js'
export * as UpdateReplicas from './UpdateReplicas.js'
export * as ValueLoss from './ValueLoss.js'
