/**
 * A transcript as token ids for next-token training, in exactly the chat layout the agents play
 * in (`@mtrl/rollout`'s `Layout`, the policy's `ChatTemplate`): the prompt (system message, then
 * the goal and first observation as the first user turn, ending with the assistant header), then
 * per turn the command as an assistant turn (ending with the stop token) and the answer as a user
 * turn. So a base model learns the very token sequences it will later read and write, and
 * `ExpertData.replay` of the same commands (`@mtrl/trainer-sft`) gives the same tokens.
 *
 * The result is a `Trajectory` (segments `prompt | action | observation`), which the SFT loop
 * trains on as it is; which tokens the loss covers is the trainer's choice (a pretrain stage
 * trains on all of them, see docs/decisions/0016).
 *
 * @since 0.1.0
 */
import type { Tokenizer, Trajectory } from '@mtrl/core'
import { Layout, type ActionFormat } from '@mtrl/rollout'
import type * as Transcript from './Transcript.js'

/**
 * The layout of the agents that will start from the model: their system prompt and action format
 * (as a recipe's `rollout` sets them), the chat template and tokenizer, and the context length:
 * a transcript is cut after its last whole turn that fits.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly systemPrompt: string
  readonly actionFormat: ActionFormat.ActionFormat
  readonly template: Tokenizer.ChatTemplate
  readonly tokenizer: Tokenizer.Tokenizer
  readonly contextLength: number
}

/**
 * The transcript's tokens, cut after the last whole turn (command and answer) that fits
 * `contextLength`; `undefined` when not even the prompt and the first command fit. Commands are
 * action segments, answers observation segments; turns carry the commands' validity.
 *
 * @example
 * import { Render } from '@mtrl/pretrain'
 * declare const options: Render.Options
 * declare const transcript: import('@mtrl/pretrain').Transcript.Transcript
 * const sample = Render.render(options)(transcript)
 *
 * @category constructors
 * @since 0.1.0
 */
export const render =
  (options: Options) =>
  (transcript: Transcript.Transcript): Trajectory.Trajectory | undefined => {
    const { template, tokenizer } = options
    const prompt = template.prompt(Layout.system(options.systemPrompt, options.actionFormat), Layout.firstUser(transcript.goal, transcript.text))
    const segments: Trajectory.Segment[] = [{ kind: 'prompt', turn: 0, tokens: prompt }]
    const turns: Trajectory.Turn[] = []
    let length = prompt.length
    for (const [turn, step] of transcript.steps.entries()) {
      const action = Layout.replyTokens(template, tokenizer)(Layout.reply(options.actionFormat, step.action))
      // the last turn's answer is not rendered (nothing follows it), as in rollouts
      const last = turn === transcript.steps.length - 1
      const observation = last ? new Int32Array(0) : template.observation(step.observation)
      if (length + action.length + observation.length > options.contextLength) break
      segments.push({ kind: 'action', turn, tokens: action })
      if (!last) segments.push({ kind: 'observation', turn, tokens: observation })
      turns.push({ action: step.action, reward: 0, valid: step.valid, parsed: true, score: 0, maxScore: 0 })
      length += action.length + observation.length
    }
    if (turns.length === 0) return undefined
    const whole = turns.length === transcript.steps.length
    return {
      env: transcript.env,
      seed: transcript.seed,
      groupId: `${transcript.env}:${transcript.seed}`,
      segments: segments.at(-1)?.kind === 'observation' ? segments.slice(0, -1) : segments,
      turns,
      turnRewards: turns.map(() => 0),
      won: whole && transcript.won,
      truncated: !(whole && transcript.done)
    }
  }
