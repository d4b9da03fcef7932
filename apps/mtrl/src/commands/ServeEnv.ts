/**
 * `mtrl serve-env ENV`: serve any mtrl environment over the AgentGym HTTP protocol, so a
 * trainer in any language (verl, SkyRL, OpenRLHF, ...) can use it.
 */
import { EnvServer } from '@mtrl/env-http'
import * as E from 'fp-ts/lib/Either.js'
import { failed, int, make, text } from '../Command.js'
import { envFlags, envFlagsHelp, openEnv } from '../EnvFlags.js'

export const serveEnv = make({
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
  flags: { ...envFlags, port: int(8000), host: text, token: text, 'max-envs': int(256), 'idle-seconds': int(600) },
  positionals: true,
  run:
    ({ values, positionals }) =>
    async () => {
      const opened = openEnv(positionals[0], values)
      if (E.isLeft(opened)) return opened
      const h = opened.right
      const token = values.token ?? process.env['MTRL_SERVE_TOKEN']
      const options = {
        factory: h.make,
        host: values.host ?? '127.0.0.1',
        port: values.port,
        maxEnvs: values['max-envs'],
        idleMs: 1000 * values['idle-seconds']
      }
      const started = await EnvServer.start({ ...options, ...(token === undefined ? {} : { token }) })()
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
})
