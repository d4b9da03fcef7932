/**
 * A per-token policy loss aggregated over a whole batch: the same weights (`Aggregation.weights`)
 * and weighted sums (`Aggregation.weighted`) training takes on every shard (./shardLoss.ts), so a
 * loss module's `loss` and the update compute one thing.
 */
import * as tf from '@tensorflow/tfjs'
import * as Aggregation from '../Aggregation.js'
import type { Output, TokenInput, Tokens } from '../PolicyLoss.js'

export const batchLoss =
  (perToken: (input: TokenInput) => Tokens, aggregation: Aggregation.Mode) =>
  (input: TokenInput): Output => {
    const tokens = perToken(input)
    try {
      return {
        loss: Aggregation.aggregate(aggregation)(tokens.loss, input.mask),
        clipFraction: Aggregation.aggregate('token-mean')(tokens.clipped, input.mask),
        approxKl: Aggregation.aggregate('token-mean')(tokens.negLogRatio, input.mask)
      }
    } finally {
      tf.dispose([tokens.loss, tokens.clipped, tokens.negLogRatio])
    }
  }
