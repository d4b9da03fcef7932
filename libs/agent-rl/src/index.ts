/**
 * @mtrl/agent-rl: RL for agents written as ordinary code. The policy is served over the OpenAI
 * API (`@mtrl/serving`); each run of the agent gets its own route, its model calls are recorded
 * token-exact and become the episodes mtrl's trainers learn from.
 *
 * @since 0.1.0
 */
export * as Play from './Play.js'
export * as Judge from './Judge.js'
