/**
 * @mtrl/env-http: environments over HTTP (AgentGym-compatible client and server), an
 * OpenAI-compatible remote policy, chat-format trajectory collection and rollouts over many
 * environment servers. Node only.
 *
 * @since 0.1.0
 */
export * as EnvServer from './EnvServer.js'
export * as HttpEnv from './HttpEnv.js'
export * as Protocol from './Protocol.js'
