/**
 * The test-seed ledger in a run and in `mtrl eval` (the rules and the file are @mtrl/experiment's
 * `TestLooks` and `Ledger`): what a look records of a recipe, a phase and a checkpoint.
 */
import type { Summary } from '@mtrl/eval'
import { Ledger, TestLooks } from '@mtrl/experiment'
import * as E from 'fp-ts/lib/Either.js'
import type { Resolved } from '../Recipe.js'

/** Where test looks are recorded, and the backend they ran on (part of what makes two looks the same evaluation). */
export interface Looks {
  readonly ledger: string
  readonly backend: string
}

/** What plays before a run's first stage: the model folder it starts from, or the scratch model of its recipe version and seed. */
export const startCheckpoint = (recipe: Resolved): string | null =>
  recipe.model.kind === 'scratch' ? Ledger.scratchCheckpoint(Ledger.recipeHash(recipe), recipe.seed) : (Ledger.checkpointHash(recipe.model.path) ?? null)

/** The sampling seed of a recipe's evaluation (Evaluation.all's). */
export const samplingSeed = (recipe: Resolved): number => recipe.seed + 1000

/**
 * Records a run's evaluation `phase` of `checkpoint` (never refused: a run plays the evaluations
 * its recipe plans); a mismatch is a note, the run goes on.
 */
export const recordPhase =
  (looks: Looks, recipe: Resolved, run: string, phase: string, checkpoint: string | null) =>
  (results: ReadonlyArray<Summary.Summary>): E.Either<string, Ledger.Recorded> =>
    Ledger.record(looks.ledger)(
      Ledger.looksOf({
        recipe: recipe.name,
        recipeHash: Ledger.recipeHash(recipe),
        seed: recipe.seed,
        run,
        phase,
        checkpoint,
        temperature: recipe.eval.temperature,
        samplingSeed: samplingSeed(recipe),
        backend: looks.backend,
        via: 'run'
      })(results)
    )

/** What `mtrl eval` looks at: the recipe the checkpoint was trained with (none outside a run) and the checkpoint. */
export interface Target {
  readonly trained: Resolved | undefined
  readonly path: string
  readonly checkpoint: string | null
}

const planned = (target: Target): TestLooks.Planned => ({
  recipe: target.trained?.name ?? null,
  recipeHash: target.trained === undefined ? null : Ledger.recipeHash(target.trained),
  seed: target.trained?.seed ?? null,
  checkpoint: target.checkpoint
})

/** Before `mtrl eval` on test seeds: the refusal's message, or nothing. */
export const refusal = (looks: Looks, target: Target): E.Either<string, void> =>
  E.chain((ledger: ReadonlyArray<TestLooks.Look>) => {
    const verdict = TestLooks.before(ledger)(planned(target))
    return verdict._tag === 'Refused' ? E.left(verdict.message) : E.right(undefined)
  })(Ledger.read(looks.ledger))

/** After `mtrl eval`: records its looks at test seeds (`evaluated`: the recipe it played, flags applied). */
export const recordEval =
  (looks: Looks, target: Target, evaluated: Resolved) =>
  (results: ReadonlyArray<Summary.Summary>): E.Either<string, Ledger.Recorded> => {
    const p = planned(target)
    return Ledger.record(looks.ledger)(
      Ledger.looksOf({
        ...p,
        run: null,
        phase: `mtrl eval ${target.path}`,
        temperature: evaluated.eval.temperature,
        samplingSeed: samplingSeed(evaluated),
        backend: looks.backend,
        via: 'eval'
      })(results)
    )
  }
