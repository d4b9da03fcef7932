/**
 * @mtrl/env-http: environments over HTTP (AgentGym-compatible client and server), an
 * OpenAI-compatible remote policy, chat-format trajectory collection and rollouts over many
 * environment servers. Node only.
 *
 * @since 0.1.0
 */
export * as ChatLog from './ChatLog.js'
export * as ChatPolicy from './ChatPolicy.js'
export * as EnvServer from './EnvServer.js'
export * as Episode from './Episode.js'
export * as Expert from './Expert.js'
export * as Fleet from './Fleet.js'
export * as HttpEnv from './HttpEnv.js'
export * as Pool from './Pool.js'
export * as Protocol from './Protocol.js'
export * as Registration from './Registration.js'
