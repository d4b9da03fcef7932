import { expectNoLeak, TestBackend } from '@mtrl/testing'
import * as E from 'fp-ts/lib/Either.js'
import * as net from 'node:net'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import * as _ from '../src/Serve.js'

const dir = join(__dirname, '../../../fixtures/hf/tiny-qwen2')

beforeAll(async () => {
  await TestBackend.use('cpu')
})

describe('Serve: a model folder served end to end', () => {
  it('loads the folder, answers with the token, and stop reports what it served, leaking nothing', async () => {
    await expectNoLeak(async () => {
      const serving = await _.start({ dir, name: 'tiny', slots: 2, maxLen: 96, token: 'T', seed: 3 })()
      if (E.isLeft(serving)) throw new Error(_.message(serving.left))
      const { url, banner } = serving.right
      expect(banner).toBe(`serving tiny-qwen2 as "tiny" (${serving.right.model.format.kind} chat format, context 96, 2 slots) at ${url}/v1`)
      const refused = await fetch(`${url}/v1/models`)
      expect(refused.status).toBe(401)
      const models = (await (await fetch(`${url}/v1/models`, { headers: { authorization: 'Bearer T' } })).json()) as { data: Array<{ id: string }> }
      expect(models.data.map((m) => m.id)).toEqual(['tiny'])
      const body = { model: 'tiny', messages: [{ role: 'user', content: 'hi' }], max_tokens: 3 }
      const res = await fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: 'Bearer T', 'content-type': 'application/json' },
        body: JSON.stringify(body)
      })
      const done = (await res.json()) as { usage: { prompt_tokens: number; completion_tokens: number } }
      expect(res.status).toBe(200)
      const stats = await serving.right.stop()
      expect(stats.completed).toBe(1)
      expect(stats.generatedTokens).toBe(done.usage.completion_tokens)
      expect(stats.promptTokens).toBe(done.usage.prompt_tokens)
      expect(_.describeStats(stats)).toBe(
        `stopped after 1 completions: ${stats.generatedTokens} tokens generated, ${stats.cachedTokens} of ${stats.promptTokens} prompt tokens from the prefix cache`
      )
      await expect(fetch(`${url}/v1/models`)).rejects.toThrow()
    })
  }, 60_000)

  it('names the folder that does not load', async () => {
    const missing = join(__dirname, 'no-such-model')
    const serving = await _.start({ dir: missing })()
    expect(E.isLeft(serving) && serving.left._tag).toBe('LoadFailed')
    if (E.isLeft(serving)) expect(_.message(serving.left)).toMatch(new RegExp(`^${missing}: \\{"_tag":`))
  })

  it('names the address it cannot bind, and frees the model it loaded', async () => {
    const taken = net.createServer()
    const port = await new Promise<number>((resolve) => taken.listen(0, '127.0.0.1', () => resolve((taken.address() as net.AddressInfo).port)))
    try {
      await expectNoLeak(async () => {
        const serving = await _.start({ dir, port })()
        expect(E.isLeft(serving) && _.message(serving.left)).toMatch(new RegExp(`^cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`))
      })
    } finally {
      taken.close()
    }
  }, 60_000)
})
