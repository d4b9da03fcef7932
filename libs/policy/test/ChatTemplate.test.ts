/**
 * Rollout layouts derived from published chat templates (fixtures/hf-templates: Gemma 2, Gemma 3,
 * Llama 3.2, Mistral Nemo, Phi-3.5, and Command R7B, whose replies open with a token), token for token against Python `transformers`'
 * `apply_chat_template(..., tokenize=True)` over the same agent conversation
 * (tools/fixtures/hf-templates.py wrote the reference ids).
 */
import * as E from 'fp-ts/lib/Either.js'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import * as ChatTemplate from '../src/ChatTemplate.js'
import * as HfTokenizer from '../src/HfTokenizer.js'
import * as WordTokenizer from '../src/WordTokenizer.js'

const fixtures = resolve(dirname(fileURLToPath(import.meta.url)), '../../../fixtures/hf-templates')
const names = readdirSync(fixtures).filter((d) => d.startsWith('tpl-'))
// the date Llama 3.2's template prints (`strftime_now`), as the reference was rendered with it
const now = (): Date => new Date(2024, 6, 26, 12)

interface Reference {
  readonly system: 'message' | 'folded'
  readonly system_prompt: string
  readonly conversation: ReadonlyArray<{ readonly role: string; readonly content: string }>
  readonly turns: ReadonlyArray<ReadonlyArray<number>>
  readonly finished: ReadonlyArray<number>
}

const read = (name: string): { tokenizer: HfTokenizer.HfTokenizer; config: Record<string, string>; reference: Reference } => {
  const file = (f: string): unknown => JSON.parse(readFileSync(join(fixtures, name, f), 'utf8'))
  const config = file('tokenizer_config.json') as Record<string, string>
  return { tokenizer: HfTokenizer.fromJson(file('tokenizer.json'), config), config, reference: file('reference.json') as Reference }
}

const derive = (tokenizer: HfTokenizer.HfTokenizer, source: string, config: Record<string, string>): ChatTemplate.ChatTemplate =>
  E.getOrElseW((e: string) => {
    throw new Error(e)
  })(ChatTemplate.fromJinja(tokenizer, source, { bos_token: config['bos_token'], eos_token: config['eos_token'], now }))

/** The layout's ids after each user turn of the reference conversation (the replies as an expert's), and the demonstration. */
const layout = (template: ChatTemplate.ChatTemplate, reference: Reference): { turns: number[][]; demonstration: number[] } => {
  const [, ...rest] = reference.conversation
  // the user text as the rollout has it: a folded reference carries the system prompt in it
  const firstUser = reference.conversation[reference.system === 'folded' ? 0 : 1]!.content.replace(`${reference.system_prompt}\n\n`, '')
  let ids = Array.from(template.prompt(reference.system_prompt, firstUser))
  const turns = [ids]
  for (const m of reference.system === 'folded' ? rest : rest.slice(1)) {
    ids = [...ids, ...(m.role === 'assistant' ? template.reply!(m.content) : template.observation(m.content))]
    if (m.role === 'user') turns.push(ids)
  }
  return { turns, demonstration: turns[2]!.slice(0, turns[2]!.length - (ids.length - turns[2]!.length)) }
}

describe('ChatTemplate.fromJinja: rollouts in the published chat template, token-exact with transformers', () => {
  for (const name of names)
    it(name, () => {
      const { tokenizer, config, reference } = read(name)
      const template = derive(tokenizer, config['chat_template']!, config)
      const { turns } = layout(template, reference)
      // the prompt, then prompt + reply + observation after each turn: transformers' ids of the conversation so far
      expect(turns).toEqual(reference.turns)
      // the demonstration (two replies, each ended by the stop token) is the finished conversation up to its last end of turn
      const [, ...after] = reference.conversation
      const replies = after.filter((m) => m.role === 'assistant')
      const demo = [...turns[1]!, ...template.reply!(replies[1]!.content)]
      expect(reference.finished.slice(0, demo.length)).toEqual(demo)
      // after it, only what the template writes after a finished conversation: a newline, eos, a next turn's header
      expect(
        tokenizer
          .decode(reference.finished.slice(demo.length))
          .replace(/<[^<>]+>/g, '')
          .trim()
      ).toBe('')
      expect(template.stopTokens[0]).toBe(demo[demo.length - 1])
      // ChatTemplate.make follows the folder's template, and says where the system prompt went
      expect(ChatTemplate.make(tokenizer).origin).toBe(template.origin)
      expect(template.origin!.includes('system')).toBe(reference.system === 'folded')
      // mtrl's own layout (what rollouts used before) is not the template's
      const own = ChatTemplate.make(HfTokenizer.fromJson(tokenizer.json, { ...config, chat_template: undefined }))
      expect(Array.from(own.prompt(reference.system_prompt, 'x'))).not.toEqual(Array.from(template.prompt(reference.system_prompt, 'x')))
    })

  it('a broken template breaks the equality (the check bites)', () => {
    const { tokenizer, config, reference } = read('tpl-gemma3')
    // Gemma 3 without the newline after <end_of_turn>: still derivable, but not transformers' ids
    const broken = derive(tokenizer, config['chat_template']!.replace("{{ '<end_of_turn>\n' }}", "{{ '<end_of_turn>' }}"), config)
    expect(layout(broken, reference).turns[1]).not.toEqual(reference.turns[1])
  })

  it('refuses, with the reason, a template that rewrites earlier replies (Qwen3) or whose turns are not one special token', () => {
    const { tokenizer } = read('tpl-gemma3')
    // Qwen3's published template drops the thinking of earlier replies (fixtures/chat-templates/table/qwen3.jinja)
    const qwen3 = readFileSync(resolve(fixtures, '../chat-templates/table/qwen3.jinja'), 'utf8')
    expect(ChatTemplate.fromJinja(tokenizer, qwen3)).toEqual(E.left(expect.stringContaining('drops the thinking of earlier replies')))
    const plain = '{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}{% if add_generation_prompt %}assistant: {% endif %}'
    expect(ChatTemplate.fromJinja(tokenizer, plain)).toEqual(E.left(expect.stringContaining('does not start with one special token')))
    expect(ChatTemplate.fromJinja(tokenizer, '{% for m in messages %')).toEqual(E.left(expect.stringContaining('does not parse')))
    // make falls back to mtrl's layout and says why
    const fallback = ChatTemplate.make(HfTokenizer.fromJson(tokenizer.json, { ...(tokenizer.config as object), chat_template: plain }))
    expect(fallback.origin).toMatch(/^mtrl's .* layout.*, not the model's chat template: it ends an assistant message/)
  })

  // The chat-template table's 27 published templates (fixtures/chat-templates/table), each with a tokenizer that has its
  // markers as special tokens: which lay rollouts out, where the system prompt goes, and why the others cannot.
  const published: Readonly<Record<string, string>> = {
    'qwen2.5': 'own',
    qwq: 'rewrites the first',
    qwen3: 'drops the thinking of earlier replies',
    'qwen3-coder': 'own',
    'qwen3.5': 'rewrites the first',
    'llama3.1': 'own',
    'llama3.2': 'own',
    'llama3.2-vision': 'own',
    hermes3: 'cannot render a plain conversation',
    gemma2: 'refuses a system message',
    gemma4: 'rewrites the first',
    'phi3.5': 'own',
    'mistral-nemo': 'one-turn conversation',
    'mistral-small-3.2': 'own',
    'deepseek-r1-distill': 'drops the thinking of earlier replies',
    'deepseek-v3.1': 'drops the thinking of earlier replies',
    'command-r-plus': 'cannot render a plain conversation',
    'command-r7b': 'own',
    'granite3.3': 'own',
    'glm4.6': 'drops the thinking of earlier replies',
    'gpt-oss': 'own',
    'kimi-k2': 'own',
    'nemotron3-nano': 'rewrites the first',
    smollm3: 'own',
    'functionary3.2': 'own',
    'minimax-m2': 'rewrites the first',
    'seed-oss': 'cannot render the chat template as transformers renders it'
  }
  it('the published templates of the chat-template table: laid out, or refused with the reason', () => {
    const table = resolve(fixtures, '../chat-templates')
    const templates = (
      JSON.parse(readFileSync(join(table, 'table/reference.json'), 'utf8')) as {
        templates: Record<string, { file: string; bos_token: string | null; eos_token: string | null }>
      }
    ).templates
    const base = JSON.parse(readFileSync(resolve(fixtures, '../hf/tiny-llama/tokenizer.json'), 'utf8')) as {
      model: { vocab: Record<string, number> }
      added_tokens: unknown[]
    }
    const outcomes = Object.entries(templates).map(([name, t]) => {
      const source = readFileSync(join(table, t.file), 'utf8')
      const markers = new Set([t.bos_token, t.eos_token].filter((x): x is string => x !== null))
      for (const m of source.matchAll(/<\|[^|'"\s]+\|>|<｜[^｜'"]+｜>|<\/?[a-z_]+>|\[[A-Z_/]+\]|\]~!b\[|\[e~\[|\]~b\]|<seed:[a-z_]+>/g)) markers.add(m[0])
      const json = structuredClone(base)
      for (const [i, m] of [...markers].entries()) {
        json.model.vocab[m] = 300 + i
        json.added_tokens.push({ id: 300 + i, content: m, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })
      }
      const tokenizer = HfTokenizer.fromJson(json, { bos_token: t.bos_token, eos_token: t.eos_token })
      const derived = ChatTemplate.fromJinja(tokenizer, source, { bos_token: t.bos_token ?? undefined, eos_token: t.eos_token ?? undefined, now })
      return [name, E.isRight(derived) ? (derived.right.origin === "the model's chat template" ? 'own' : derived.right.origin!) : derived.left] as const
    })
    for (const [name, outcome] of outcomes) expect(outcome, name).toContain(published[name])
    expect(outcomes.length).toBe(Object.keys(published).length)
  })

  it('a word tokenizer keeps its role-token layout', () => {
    const words = WordTokenizer.build({ maxVocab: 64, minCount: 1 })(['look around'])
    expect(ChatTemplate.make(words).origin).toBe("mtrl's role-token layout")
  })
})
