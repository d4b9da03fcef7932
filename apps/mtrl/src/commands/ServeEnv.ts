/**
 * `mtrl serve-env ENV`: serve any mtrl environment over the AgentGym HTTP protocol, so a
 * trainer in any language (verl, SkyRL, OpenRLHF, ...) can use it.
 */
import { EnvServer } from '@mtrl/env-http'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import { failed, intFlag, parseFlags, type Command } from '../Command.js'
import { envFlags, envFlagsHelp, envFromFlags, envSource } from '../EnvFlags.js'

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
  run: (argv) => async () => {
    const parsed = pipe(
      parseFlags(argv, { ...envFlags, port: { type: 'string' }, host: { type: 'string' }, token: { type: 'string' }, 'max-envs': { type: 'string' }, 'idle-seconds': { type: 'string' } }, true),
      E.bindTo('flags'),
      E.bind('env', ({ flags }) => envFromFlags(flags.positionals[0], flags.values)),
      E.bind('port', ({ flags }) => intFlag('port', flags.values.port, 8000)),
      E.bind('maxEnvs', ({ flags }) => intFlag('max-envs', flags.values['max-envs'], 256)),
      E.bind('idle', ({ flags }) => intFlag('idle-seconds', flags.values['idle-seconds'], 600))
    )
    if (E.isLeft(parsed)) return parsed
    const { flags, env, port, maxEnvs, idle } = parsed.right
    const h = envSource(env)
    const token = flags.values.token ?? process.env['MTRL_SERVE_TOKEN']
    const started = await EnvServer.start({ factory: h.make, host: flags.values.host ?? '127.0.0.1', port, maxEnvs, idleMs: 1000 * idle, ...(token === undefined ? {} : { token }) })()
    if (E.isLeft(started)) return E.left(failed(JSON.stringify(started.left)))
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
    return E.right(0)
  }
}
