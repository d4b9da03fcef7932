/**
 * The live charts: what each draws and a caption that says what the quantity is and why it
 * matters, in the terms of "A Practitioner's Guide to Multi-turn Agentic RL" (Wang &
 * Ammanabrolu 2025). The same quantities as a Node run's `report.html`.
 */
import type { ChartName } from './pageState.js'

export interface ChartSpec {
  readonly name: ChartName
  readonly title: string
  readonly caption: string
  readonly xLabel: string
  /** A fixed y range (shares); otherwise the data's. */
  readonly yRange?: readonly [number, number]
}

export const chartSpecs: ReadonlyArray<ChartSpec> = [
  {
    name: 'loss',
    title: 'SFT loss',
    xLabel: 'step',
    caption:
      "Negative log-likelihood of the expert's actions (loss/sft) and, when on, of the context tokens (loss/context), per step. SFT on expert games gives RL a prior that already wins sometimes: the paper's recipe starts RL from one."
  },
  {
    name: 'heldOutLoss',
    title: 'SFT loss per epoch: training and held-out',
    xLabel: 'epoch',
    caption:
      'The same loss on demonstrations kept out of training. When it stops falling while the training loss falls, the prior memorises rather than generalises.'
  },
  {
    name: 'success',
    title: 'RL: success rate of the sampled episodes',
    xLabel: 'iteration',
    yRange: [0, 1],
    caption:
      "Share of each iteration's own episodes (sampled at the rollout temperature) that win the game. Task success is the paper's main measure; RL should lift it above the SFT prior's."
  },
  {
    name: 'invalid',
    title: 'RL: invalid actions and truncated episodes',
    xLabel: 'iteration',
    yRange: [0, 1],
    caption:
      "Share of turns whose command the game rejects, and of episodes cut by the turn budget. Invalid actions fall as the agent learns the game's command language; truncation falls as it learns to finish."
  },
  {
    name: 'kl',
    title: 'RL: KL to the prior and to the reference',
    xLabel: 'iteration',
    caption:
      "How far the policy has moved from the RL stage's start, the SFT prior (kl/prior), and the KL term's estimate to the reference (kl/mean, when on). KL keeps the policy near the SFT prior: a sudden rise is drift, a flat zero is no learning."
  },
  {
    name: 'eval',
    title: 'Held-out greedy success at each evaluation',
    xLabel: 'evaluation',
    yRange: [0, 1],
    caption:
      'Greedy play (temperature 0) on held-out seeds no training episode used, one line per game, before training (when on), after SFT and after RL: the number the paper reports for every ablation.'
  }
]
