/**
 * One step of an SFT run: the optimizer step on a batch (split across the replicas when there are
 * some and the batch has more than one sample), its metrics recorded, the weight average updated.
 */
import type { Trajectory } from '@mtrl/core'
import type { StepMetrics } from '../Sft.js'
import * as WeightAverage from '../WeightAverage.js'
import type { Run } from './run.js'
import { parallelStep, singleStep, type StepOutcome } from './step.js'

/** The optimizer step on `part` at learning rate `lr`, in this thread or across `run`'s replicas. */
const optimizerStep = (run: Run, part: ReadonlyArray<Trajectory.Trajectory>, lr: number): StepOutcome =>
  run.replicas !== undefined && run.replicas.size > 0 && part.length > 1
    ? parallelStep(run.options, run.policy, run.optimizer, run.replicas, part, lr)
    : singleStep(run.options, run.policy, run.optimizer, part, lr)

/**
 * Trains `run` on `part` (a batch of epoch `epoch`) at the scheduled learning rate, appends the
 * step's metrics to `run.steps` (`loss/sft` is the action-token NLL before the update), then
 * moves the weight average (if any) towards the new weights; returns the metrics.
 */
export const takeStep = (run: Run, part: ReadonlyArray<Trajectory.Trajectory>, epoch: number): StepMetrics => {
  const lr = run.schedule(run.steps.length)
  const result = optimizerStep(run, part, lr)
  const metrics: StepMetrics = {
    step: run.steps.length,
    epoch,
    'loss/sft': result.aux?.['action'] ?? result.loss,
    'loss/context': result.aux?.['context'] ?? Number.NaN,
    'grad/norm': result.gradNorm,
    'optim/lr': lr
  }
  run.steps.push(metrics)
  if (run.average !== undefined) {
    WeightAverage.update(run.average, run.variables, WeightAverage.emaDecayAt(run.options.emaDecay, run.steps.length))
  }
  return metrics
}
