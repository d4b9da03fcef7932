/**
 * @mtrl/http: the shape mtrl's HTTP servers share (`Server` of @mtrl/serving, `EnvServer` of
 * @mtrl/env-http): bearer tokens compared in constant time, request bodies under a limit (a 413
 * the client can read), JSON answers, server-sent events, the requests in flight with a graceful
 * drain, and listening with a clear error.
 *
 * @since 0.1.0
 */
export * as Bearer from './Bearer.js'
export * as Body from './Body.js'
export * as Listen from './Listen.js'
export * as Settings from './Settings.js'
export * as Sse from './Sse.js'
export * as Traffic from './Traffic.js'
