import { Agent, ChatTemplate, ModelConfig, Policy, WordTokenizer } from '@mtrl/policy'
import { TestBackend } from '@mtrl/testing'
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const bin = join(__dirname, '..', 'bin', 'mtrl.mjs')
const fixtures = join(__dirname, '../../../fixtures')
const dir = mkdtempSync(join(tmpdir(), 'mtrl-serve-policy-'))

beforeAll(async () => {
  await TestBackend.use('cpu')
  const tokenizer = WordTokenizer.build({ maxVocab: 400, minCount: 1 })(['You are in a kitchen. go north take key'])
  const policy = Policy.make(ModelConfig.make({ vocab: tokenizer.vocabSize, dModel: 32, layers: 1, heads: 2, maxLen: 128 }), 0, { tokenizer })
  const agent = Agent.make(policy, undefined, tokenizer, ChatTemplate.make(tokenizer), 128)
  await Agent.save(join(dir, 'checkpoint'), agent, {})()
  // a run folder: its recipe and its last finished stage
  await Agent.save(join(dir, 'run', 'checkpoints', 'stage-1', 'end'), agent, {})()
  writeFileSync(join(dir, 'run', 'recipe.json'), '{}')
  mkdirSync(join(dir, 'empty-run'))
  writeFileSync(join(dir, 'empty-run', 'recipe.json'), '{}')
  agent.dispose()
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** `mtrl serve-policy ARGS` on a free port, resolved once it prints its URL. */
const serve = (args: ReadonlyArray<string>) =>
  new Promise<{ url: string; stop: () => Promise<{ code: number | null; stdout: string }> }>((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'serve-policy', ...args, '--port', '0', '--backend', 'cpu'], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString()
      const m = /serving .* at (http:\/\/\S+)\/v1/.exec(stdout)
      if (m !== null) resolve({ url: m[1]!, stop: async () => (child.kill('SIGTERM'), { code: await exited, stdout }) })
    })
    void exited.then((code) => reject(new Error(`serve-policy exited with ${code} before serving: ${stderr}`)))
  })

const chat = async (url: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> => {
  const res = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return { status: res.status, json: (await res.json()) as Record<string, unknown> }
}

describe('mtrl serve-policy', () => {
  it('serves an mtrl checkpoint (turns format), answers curl-style requests, and drains on SIGTERM with exit 0', async () => {
    const served = await serve([join(dir, 'checkpoint'), '--name', 'agent'])
    const ok = await chat(served.url, { model: 'agent', messages: [{ role: 'user', content: 'You are in a kitchen.' }], max_tokens: 5, temperature: 0 })
    expect(ok.status).toBe(200)
    expect(ok.json['object']).toBe('chat.completion')
    const wrong = await chat(served.url, { model: 'other', messages: [{ role: 'user', content: 'hi' }] })
    expect(wrong.status).toBe(404)
    const { code, stdout } = await served.stop()
    expect(code).toBe(0)
    expect(stdout).toMatch(/turns chat format/)
    expect(stdout).toMatch(/stopped after 1 completions/)
  })

  it("serves the shipped base (models/base): a game's observation in, one of the games' commands out", async () => {
    const served = await serve([join(__dirname, '../../../models/base')])
    const observation = 'You are in a kitchen. There is a closed fridge here. You see a key on the table. There is an exit to the north.'
    const ok = await chat(served.url, { model: 'mtrl', messages: [{ role: 'user', content: observation }], max_tokens: 10, temperature: 0 })
    expect(ok.status).toBe(200)
    const reply = (ok.json['choices'] as ReadonlyArray<{ message: { content: string } }>)[0]!.message.content
    // the base writes commands (a verb the games know, then what it acts on), never prose
    expect(reply).toMatch(/^(go|examine|look|inventory|open|close|take|drop|put|insert|unlock|lock|eat) ?[a-z ]*$/)
    expect((await served.stop()).code).toBe(0)
  })

  it('serves a Hugging Face folder with a Jinja chat template given by --chat-template', async () => {
    const served = await serve([join(fixtures, 'hf/tiny-qwen2'), '--chat-template', join(fixtures, 'chat-templates/qwen2.5.jinja')])
    const ok = await chat(served.url, { model: 'mtrl', messages: [{ role: 'user', content: 'hello' }], max_tokens: 4, return_token_ids: true })
    expect(ok.status).toBe(200)
    expect((ok.json['prompt_token_ids'] as number[]).length).toBeGreaterThan(10)
    const { code, stdout } = await served.stop()
    expect(code).toBe(0)
    expect(stdout).toMatch(/jinja chat format/)
  })

  it("serves a run folder's last finished stage; a run with none is a usage error", async () => {
    const served = await serve([join(dir, 'run')])
    expect((await chat(served.url, { model: 'mtrl', messages: [{ role: 'user', content: 'go' }], max_tokens: 3 })).status).toBe(200)
    const { code, stdout } = await served.stop()
    expect(code).toBe(0)
    expect(stdout).toMatch(/serving end as "mtrl"/)
    const child = spawn(process.execPath, [bin, 'serve-policy', join(dir, 'empty-run')], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    expect(await new Promise((done) => child.once('exit', done))).toBe(2)
    expect(stderr).toMatch(/a run with no finished stage/)
  })

  it('refuses a folder that does not exist, with a usage error', async () => {
    const child = spawn(process.execPath, [bin, 'serve-policy', join(dir, 'nothing')], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    const code = await new Promise((done) => child.once('exit', done))
    expect(code).toBe(2)
    expect(stderr).toMatch(/no such folder/)
  })
})
