/**
 * `mtrl start`: the main job that `npm start` runs: `mtrl info`, then the default recipe end to
 * end (TextWorld w2-o3-q4 from scratch, SFT on expert trajectories then PPO, on the default
 * backend), ending with the summary of success rates before SFT, after SFT and after RL.
 */
import { existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { backendFlag, make, text, usage, type CliError } from '../Command.js'
import { info } from './Info.js'
import { loadRecipe, runTrain } from './Train.js'

/** recipes/default.json of the workspace (or the current folder). */
const defaultRecipe = (): E.Either<CliError, string> => {
  const candidates = [
    join(process.cwd(), 'recipes', 'default.json'),
    resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'recipes', 'default.json')
  ]
  const found = candidates.find(existsSync)
  return found === undefined ? E.left(usage(`recipes/default.json not found (looked in ${candidates.join(', ')})`)) : E.right(found)
}

export const start = make({
  name: 'start',
  summary: 'the main job (what npm start runs): info, then the default recipe',
  help: `mtrl start [--backend B] [--recipe FILE]

Prints mtrl info, then runs the default recipe (recipes/default.json): a small transformer
trained from scratch on TextWorld w2-o3-q4, SFT on expert trajectories then PPO, evaluated on
100 held-out seeds of w2-o3-q4 and w4-o6-q8 before SFT, after SFT and after RL.`,
  flags: { ...backendFlag, recipe: text },
  run: ({ values }) =>
    pipe(
      info.run(values.backend === undefined ? [] : ['--backend', values.backend]),
      TE.chainFirstIOK(() => () => process.stdout.write('\n')),
      TE.chain(() => (values.recipe === undefined ? TE.fromEither(defaultRecipe()) : TE.right(values.recipe))),
      TE.chain(loadRecipe),
      TE.chain((recipe) => runTrain(recipe, { backend: values.backend }))
    )
})
