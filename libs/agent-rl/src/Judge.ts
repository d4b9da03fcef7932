/**
 * A judge reward, RULER-style (ART's "relative universal LLM-elicited rewards"): the runs of one
 * task (a group) are shown together to a judge model behind any OpenAI-compatible endpoint,
 * which scores each between 0 and 1 against a rubric. Scoring a group relative to itself is
 * easier for a judge than absolute grading, and group-relative estimators (GRPO, RLOO) only need
 * the order and spacing within a group. The conversation the runs share (the task: their common
 * first messages) is sent once, as `<context>`; each run's own messages follow as
 * `<trajectory id="k">` (k from 1). The judge answers a JSON object
 * `{"scores": [{"trajectory_id": "1", "explanation": "...", "score": 0.7}, ...]}`, asked for with
 * a JSON schema (`response_format`), and parsed strictly: every id once, every score a number
 * in [0, 1]; anything else is an error that names what was wrong.
 *
 * @since 0.1.0
 */
import * as E from 'fp-ts/lib/Either.js'
import OpenAI from 'openai'

/**
 * One message of a run's conversation, as text (a captured call's transcript).
 *
 * @category models
 * @since 0.1.0
 */
export interface Message {
  readonly role: string
  readonly content: string
}

/**
 * Where the judge is and how it is asked: its endpoint (`baseURL`, e.g.
 * `http://127.0.0.1:8001/v1`), `model`, `apiKey`; the `rubric` (default {@link defaultRubric});
 * `temperature` (default 0); `jsonSchema` (default true) sends `response_format` with the
 * answer's JSON schema, which vLLM and OpenAI enforce (turn it off for servers without it).
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly baseURL: string
  readonly model: string
  readonly apiKey?: string
  readonly rubric?: string
  readonly temperature?: number
  readonly jsonSchema?: boolean
}

/**
 * Scores a group of runs of the same task: one score in [0, 1] per run, in order, or why not.
 *
 * @category models
 * @since 0.1.0
 */
export type Judge = (group: ReadonlyArray<ReadonlyArray<Message>>) => Promise<E.Either<string, ReadonlyArray<number>>>

/**
 * The default grading standards (RULER's intent, in our words): reaching the goal dominates,
 * then efficiency; differences in score follow differences in quality; partial progress earns
 * partial credit.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultRubric = [
  '- A trajectory that reaches its goal must score clearly higher than one that does not.',
  '- Between two that reach it, the one with fewer wasted or invalid steps scores higher.',
  '- Small differences in quality give small differences in score; large ones, large.',
  '- A trajectory that makes real progress towards the goal without reaching it earns partial credit.'
].join('\n')

/**
 * The judge's instructions (the system message) for a rubric.
 *
 * @category destructors
 * @since 0.1.0
 */
export const instructions = (rubric: string): string =>
  [
    'You are shown several trajectories of agents given the same task. The messages they share (the task) come first, in <context>; then each trajectory\'s own messages, in <trajectory id="k">.',
    'Score each trajectory between 0 and 1, comparing them with one another, by these standards:',
    rubric,
    'Answer with a JSON object only: {"scores": [{"trajectory_id": "1", "explanation": "<one sentence>", "score": <0..1>}, ...]}, one entry per trajectory.'
  ].join('\n')

/** How many first messages every run has in common. */
const sharedPrefix = (group: ReadonlyArray<ReadonlyArray<Message>>): number => {
  const shortest = Math.min(...group.map((g) => g.length))
  let n = 0
  while (n < shortest && group.every((g) => g[n]!.role === group[0]![n]!.role && g[n]!.content === group[0]![n]!.content)) n++
  // every run keeps at least its last message of its own
  return Math.min(n, shortest - 1)
}

/**
 * The user message the judge reads for a group: the shared messages once, then each run's own.
 *
 * @category destructors
 * @since 0.1.0
 */
export const prompt = (group: ReadonlyArray<ReadonlyArray<Message>>): string => {
  const shared = sharedPrefix(group)
  const json = (messages: ReadonlyArray<Message>): string => JSON.stringify(messages.map((m) => ({ role: m.role, content: m.content })))
  return [
    `<context>\n${json(group[0]!.slice(0, shared))}\n</context>`,
    ...group.map((g, k) => `<trajectory id="${k + 1}">\n${json(g.slice(shared))}\n</trajectory>`)
  ].join('\n\n')
}

const schema = {
  type: 'object',
  properties: {
    scores: {
      type: 'array',
      items: {
        type: 'object',
        properties: { trajectory_id: { type: 'string' }, explanation: { type: 'string' }, score: { type: 'number', minimum: 0, maximum: 1 } },
        required: ['trajectory_id', 'explanation', 'score']
      }
    }
  },
  required: ['scores']
} as const

const excerpt = (text: string): string => (text.length > 200 ? `${text.slice(0, 200)}...` : text)

/**
 * The scores in a judge's answer for `n` trajectories, in trajectory order, or what is wrong with
 * it. A JSON object fenced in Markdown is accepted.
 *
 * @example
 * import { Judge } from '@mtrl/agent-rl'
 * Judge.parse(2)('{"scores": [{"trajectory_id": "2", "score": 0.1}, {"trajectory_id": "1", "score": 0.9}]}')
 * // right([0.9, 0.1])
 *
 * @category destructors
 * @since 0.1.0
 */
export const parse =
  (n: number) =>
  (answer: string): E.Either<string, ReadonlyArray<number>> => {
    const text = answer
      .trim()
      .replace(/^```(?:json)?\s*/u, '')
      .replace(/\s*```$/u, '')
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      return E.left(`the judge's answer is not JSON: ${excerpt(answer)}`)
    }
    const scores = (json as { scores?: unknown } | null)?.scores
    if (!Array.isArray(scores)) return E.left(`the judge's answer has no "scores" list: ${excerpt(answer)}`)
    const out = new Array<number | undefined>(n).fill(undefined)
    for (const [i, entry] of scores.entries()) {
      const { trajectory_id: id, score } = (entry ?? {}) as { trajectory_id?: unknown; score?: unknown }
      const k = typeof id === 'string' || typeof id === 'number' ? Number(id) : NaN
      if (!Number.isInteger(k) || k < 1 || k > n) return E.left(`scores.${i}.trajectory_id: expected one of 1..${n}, got ${JSON.stringify(id)}`)
      if (out[k - 1] !== undefined) return E.left(`scores.${i}: trajectory ${k} is scored twice`)
      if (typeof score !== 'number' || !(score >= 0 && score <= 1))
        return E.left(`scores.${i}.score: expected a number in [0, 1], got ${JSON.stringify(score)}`)
      out[k - 1] = score
    }
    const missing = out.findIndex((s) => s === undefined)
    return missing >= 0 ? E.left(`the judge gave no score for trajectory ${missing + 1} of ${n}`) : E.right(out as number[])
  }

/**
 * A judge on an OpenAI-compatible endpoint (see the module comment). Transport failures are
 * retried twice by the client; a malformed answer is an error (`Left`), never a guessed score.
 *
 * @example
 * import { Judge } from '@mtrl/agent-rl'
 * const judge = Judge.make({ baseURL: 'http://127.0.0.1:8001/v1', model: 'judge' })
 * // await judge([[{ role: 'user', content: 'task' }, { role: 'assistant', content: 'done' }], ...])
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options: Options): Judge => {
  const client = new OpenAI({ baseURL: options.baseURL, apiKey: options.apiKey ?? 'none', maxRetries: 2 })
  const system = instructions(options.rubric ?? defaultRubric)
  return async (group) => {
    if (group.length === 0) return E.right([])
    if (group.some((g) => g.length === 0)) return E.left('a trajectory without messages cannot be judged')
    try {
      const reply = await client.chat.completions.create({
        model: options.model,
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: prompt(group) }
        ],
        temperature: options.temperature ?? 0,
        ...(options.jsonSchema === false ? {} : { response_format: { type: 'json_schema', json_schema: { name: 'scores', schema } } })
      })
      return parse(group.length)(reply.choices[0]?.message.content ?? '')
    } catch (error) {
      return E.left(`the judge at ${options.baseURL} failed: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
}
