/**
 * `mtrl serve-env ENV`: serve any mtrl environment over the AgentGym HTTP protocol, so a
 * trainer in any language (verl, SkyRL, OpenRLHF, ...) can use it.
 */
import { EnvServer } from '@mtrl/env-http'
import * as E from 'fp-ts/lib/Either.js'
import { intFlag, parseFlags, UsageError, type Command } from '../Command.js'
import { envFlags, envFlagsHelp, envFromFlags } from '../EnvFlags.js'
import { source } from '../recipe/EnvConfig.js'

export const serveEnv: Command = {
  name: 'serve-env',
  summary: 'serve an environment over HTTP (AgentGym protocol)',
  help: `mtrl serve-env ENV [settings] [--port 8000] [--host 127.0.0.1] [--token T] [--max-envs 256] [--idle-seconds 600]

Routes: GET / (health), GET /list_envs, GET /spec, POST /create, /reset, /step, /close.
Binds 127.0.0.1 unless --host says otherwise. With --token (or MTRL_SERVE_TOKEN) every request
needs "Authorization: Bearer T". SIGTERM or Ctrl-C shuts it down gracefully: new requests are
refused (503), requests in flight finish (up to 5 s), every environment is closed, and the
process exits 0.

${envFlagsHelp}

Examples:
  mtrl serve-env textworld --config w2-o3-q4 --port 8000
  mtrl serve-env alfworld --split valid-unseen --port 8001 --token secret`,
  run: async (argv) => {
    const { values, positionals } = parseFlags(
      argv,
      { ...envFlags, port: { type: 'string' }, host: { type: 'string' }, token: { type: 'string' }, 'max-envs': { type: 'string' }, 'idle-seconds': { type: 'string' } },
      true
    )
    const [kind] = positionals
    if (kind === undefined) throw new UsageError('which environment? (textworld, cooking, alfworld or swe)')
    const h = source(envFromFlags(kind, values))
    const token = values.token ?? process.env['MTRL_SERVE_TOKEN']
    const started = await EnvServer.start({
      factory: h.make,
      host: values.host ?? '127.0.0.1',
      port: intFlag('port', values.port, 8000),
      maxEnvs: intFlag('max-envs', values['max-envs'], 256),
      idleMs: 1000 * intFlag('idle-seconds', values['idle-seconds'], 600),
      ...(token === undefined ? {} : { token })
    })()
    if (E.isLeft(started)) {
      process.stderr.write(`mtrl serve-env: ${JSON.stringify(started.left)}\n`)
      return 1
    }
    const server = started.right
    process.stdout.write(`serving ${h.name} at ${server.url}\n`)
    await new Promise<void>((resolve) => {
      const stop = () => resolve()
      process.once('SIGINT', stop)
      process.once('SIGTERM', stop)
    })
    process.stdout.write('shutting down\n')
    await server.close()()
    h.dispose()
    process.stdout.write('stopped\n')
    return 0
  }
}
