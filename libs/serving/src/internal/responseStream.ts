/**
 * A streamed chat completion told as the Responses API's events: the response created and in
 * progress; the message item opened at the first text, its text deltas, then closed; each call
 * as a `function_call` item with its arguments; `response.completed` with the whole response.
 */
import type * as Response from '../Response.js'
import type * as Responses from '../Responses.js'
import * as Objects from './responseObjects.js'

export interface Event {
  readonly type: string
  readonly sequence_number: number
  readonly [key: string]: unknown
}

export interface ResponseStream {
  /** Tells one chat chunk. */
  readonly chunk: (chunk: Response.ChatCompletionChunk) => void
  /** The output so far, once the reply is done (after the last chunk). */
  readonly output: () => ReadonlyArray<Objects.OutputItem>
}

export const make = (id: string, model: string, request: Responses.ResponseRequest, created: number, send: (event: Event) => void): ResponseStream => {
  let sequence = 0
  const emit = (type: string, body: Record<string, unknown>): void => send({ type, sequence_number: sequence++, ...body })
  const output: Objects.OutputItem[] = []
  let message: { readonly id: string; readonly index: number; text: string } | undefined
  let finish: Response.FinishReason | null = null
  const at = (): Record<string, unknown> => ({ item_id: message!.id, output_index: message!.index, content_index: 0 })

  const openMessage = (): void => {
    const item = Objects.messageItem('', 'in_progress')
    message = { id: item.id, index: output.length, text: '' }
    emit('response.output_item.added', { output_index: message.index, item })
    emit('response.content_part.added', { ...at(), part: { type: 'output_text', text: '', annotations: [] } })
  }
  const closeMessage = (): void => {
    if (message === undefined) return
    const { text } = message
    emit('response.output_text.done', { ...at(), text, logprobs: [] })
    emit('response.content_part.done', { ...at(), part: { type: 'output_text', text, annotations: [] } })
    const item = Objects.messageItem(text, 'completed', message.id)
    emit('response.output_item.done', { output_index: message.index, item })
    output.push(item)
    message = undefined
  }
  // calls being streamed, by their index in the chat chunks: opened at their first delta, closed when the reply ends
  const calls = new Map<number, { readonly item: Objects.OutputItem & { readonly id: string }; readonly index: number; arguments: string }>()
  const call = (c: Response.ToolCallDelta): void => {
    if ('id' in c) {
      closeMessage()
      const item = Objects.callItem({ ...c, function: { ...c.function, arguments: '' } }, 'in_progress')
      const index = output.length + calls.size
      calls.set(c.index, { item, index, arguments: '' })
      emit('response.output_item.added', { output_index: index, item })
    }
    const open = calls.get(c.index)
    if (open === undefined || c.function.arguments.length === 0) return
    open.arguments += c.function.arguments
    emit('response.function_call_arguments.delta', { item_id: open.item.id, output_index: open.index, delta: c.function.arguments })
  }
  const closeCalls = (): void => {
    for (const open of calls.values()) {
      emit('response.function_call_arguments.done', { item_id: open.item.id, output_index: open.index, arguments: open.arguments })
      const done = { ...open.item, arguments: open.arguments, status: 'completed' as const }
      emit('response.output_item.done', { output_index: open.index, item: done })
      output.push(done)
    }
    calls.clear()
  }

  const start = Objects.response(id, model, request, created, { status: 'in_progress', output: [], usage: null })
  emit('response.created', { response: start })
  emit('response.in_progress', { response: start })

  return {
    chunk: (c) => {
      if (c.usage !== undefined) {
        const status = finish === 'length' ? 'incomplete' : 'completed'
        emit(`response.${status}`, { response: Objects.response(id, model, request, created, { status, output, usage: Objects.usageOf(c.usage) }) })
        return
      }
      const choice = c.choices[0]
      if (choice === undefined) return
      const text = choice.delta.content ?? ''
      if (text.length > 0) {
        if (message === undefined) openMessage()
        message!.text += text
        emit('response.output_text.delta', { ...at(), delta: text, logprobs: [] })
      }
      for (const tc of choice.delta.tool_calls ?? []) call(tc)
      if (choice.finish_reason !== null) {
        finish = choice.finish_reason
        closeCalls()
        if (message === undefined && output.length === 0) openMessage() // an empty reply is an empty message
        closeMessage()
      }
    },
    output: () => output
  }
}
