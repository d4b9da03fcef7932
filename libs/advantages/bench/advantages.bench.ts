/**
 * Throughput of every estimator on a [4096, 1024] batch shaped like multi-turn rollouts:
 * a 64-token prompt, then turns of 48 action tokens and 80 observation tokens, a reward on the
 * last action token of each turn, groups of 8 rows. Tokens/s counts all batch x time positions
 * (input validation included). Run: npm run bench -w @mtrl/advantages
 */
import { Rng } from '@mtrl/core'
import { Estimator, type TokenBatch } from '../src/index.js'

const batch = 4096
const time = 1024
const rng = Rng.make(7)

const makeInput = (): TokenBatch.TokenBatch => {
  const n = batch * time
  const tokenRewards = new Float32Array(n)
  const actionMask = new Float32Array(n)
  const values = new Float32Array(n)
  const turnIndex = new Int32Array(n).fill(-1)
  for (let b = 0; b < batch; b++) {
    let t = 64
    let turn = 0
    while (t < time) {
      const end = Math.min(time, t + 48)
      for (let i = t; i < end; i++) {
        actionMask[b * time + i] = 1
        turnIndex[b * time + i] = turn
      }
      tokenRewards[b * time + end - 1] = rng.next() < 0.3 ? 1 : 0
      t = end
      const obsEnd = Math.min(time, t + 80)
      for (let i = t; i < obsEnd; i++) turnIndex[b * time + i] = turn
      t = obsEnd
      turn++
    }
  }
  for (let i = 0; i < n; i++) values[i] = rng.next() * 2 - 1
  const groupIds = Array.from({ length: batch }, (_, b) => `task-${Math.floor(b / 8)}`)
  const bootstrapValues = new Float32Array(batch)
  return { batch, time, tokenRewards, actionMask, values, turnIndex, groupIds, bootstrapValues }
}

const input = makeInput()
const tokens = batch * time
const runs = 7
console.log(
  `advantages bench: batch ${batch} x time ${time} = ${tokens.toLocaleString('en-US')} tokens, median of ${runs} runs after 2 warm-ups, node ${process.version}`
)
console.log('estimator            median ms   Mtokens/s')
for (const name of Estimator.names) {
  const configured = Estimator.configure(name)({})
  if (configured._tag === 'Left') throw new Error(`cannot configure ${name}`)
  const estimate = configured.right
  estimate(input)
  estimate(input)
  const times: number[] = []
  for (let r = 0; r < runs; r++) {
    const start = performance.now()
    estimate(input)
    times.push(performance.now() - start)
  }
  times.sort((a, b) => a - b)
  const median = times[Math.floor(runs / 2)]!
  console.log(`${name.padEnd(20)} ${median.toFixed(1).padStart(9)}   ${(tokens / median / 1000).toFixed(1).padStart(9)}`)
}
