/**
 * `mtrl serve-policy RUN_DIR|MODEL_DIR`: any agent mtrl can load (a run's final checkpoint, a
 * checkpoint folder, a Hugging Face Llama/Qwen2 folder, with a LoRA adapter or not) served over
 * the OpenAI Chat Completions and Responses APIs, for the programs people already write.
 */
import { Progress } from '@mtrl/experiment'
import { Serve } from '@mtrl/serving'
import * as E from 'fp-ts/lib/Either.js'
import { existsSync, readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { backendFlag, failed, int, make, text, usage } from '../Command.js'
import { startBackend } from '../Runtime.js'

export const servePolicy = make({
  name: 'serve-policy',
  summary: 'serve an agent over the OpenAI API (chat completions, responses)',
  help: `mtrl serve-policy RUN_DIR|MODEL_DIR [--port 8000] [--host 127.0.0.1] [--token T] [--name NAME]
                  [--slots 32] [--max-len N] [--chat-template FILE] [--max-requests 256] [--seed 0] [--backend B]

Serves POST /v1/chat/completions (streaming, tools, logprobs, n, seed, stop; structured output
with response_format json_object / json_schema and forced tools with tool_choice, by constrained
decoding; the extensions "return_token_ids": true, the prompt's and each choice's exact token ids,
and "chat_template_kwargs"), POST /v1/responses (the Responses API: input items, tools, text.format,
previous_response_id, streaming) and GET /v1/models, for the openai client, @openai/agents, the ai
SDK, LangChain or any program that speaks the API (base URL http://HOST:PORT/v1).

RUN_DIR serves the run's last finished stage; MODEL_DIR is an mtrl checkpoint or a Hugging Face
folder (config.json, model.safetensors, tokenizer.json). A Hugging Face tokenizer's own
chat_template is used (--chat-template FILE overrides it); a model trained by mtrl train uses
mtrl's turn layout, as its rollouts did. Requests decode together (continuous batching over
--slots sequences; more wait), and a request that extends an earlier conversation re-encodes only
its new tokens (prefix cache).

Binds 127.0.0.1 unless --host says otherwise. With --token (or MTRL_SERVE_TOKEN) every /v1
request needs "Authorization: Bearer T". Bad requests get OpenAI's error object (4xx). SIGTERM or
Ctrl-C drains the requests in flight and exits 0.

Examples:
  mtrl serve-policy runs/default-20261130-101500Z --port 8000
  curl -s localhost:8000/v1/chat/completions -H 'content-type: application/json' \\
    -d '{"model": "mtrl", "messages": [{"role": "user", "content": "You are in a kitchen."}]}'
  mtrl serve-policy models/Qwen2.5-0.5B-Instruct --name qwen --max-len 4096`,
  flags: {
    ...backendFlag,
    port: int(8000),
    host: text,
    token: text,
    name: text,
    slots: int(32),
    'max-len': int(),
    'chat-template': text,
    'max-requests': int(256),
    seed: int(0)
  },
  positionals: true,
  run:
    ({ values, positionals }) =>
    async () => {
      if (positionals.length !== 1) return E.left(usage('give one RUN_DIR or MODEL_DIR'))
      const dir = E.mapLeft(usage)(Progress.modelFolder(resolve(positionals[0]!)))
      if (E.isLeft(dir)) return dir
      const template = values['chat-template']
      if (template !== undefined && !existsSync(template)) return E.left(usage(`--chat-template ${template}: no such file`))
      const backend = await startBackend(values.backend)()
      if (E.isLeft(backend)) return backend
      const token = values.token ?? process.env['MTRL_SERVE_TOKEN']
      const { name, slots, host, port, seed, 'max-len': maxLen, 'max-requests': maxRequests } = values
      const options = { dir: dir.right, slots, port, maxRequests, seed, maxLen, name, host, token }
      const serving = await Serve.start({ ...options, chatTemplate: template === undefined ? undefined : readFileSync(template, 'utf8') })()
      if (E.isLeft(serving)) return E.left(failed(Serve.message(serving.left)))
      process.stdout.write(`${serving.right.banner}\n`)
      await new Promise<void>((done) => {
        process.once('SIGINT', done)
        process.once('SIGTERM', done)
      })
      process.stdout.write('shutting down: finishing the requests in flight\n')
      const stats = await serving.right.stop()
      process.stdout.write(`${Serve.describeStats(stats)}\n`)
      return E.right(0)
    }
})
