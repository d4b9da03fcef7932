/**
 * @mtrl/experiment: an experiment on disk. The run folder (`RunDir`: atomic writes, the
 * append-only metrics log), where a run is (`Progress`: next stage, evaluations, checkpoint
 * layout), its offline HTML report (`Report`), and ablations (`Grid`: variants of a JSON recipe
 * by dotted paths; `Ablation`: one row per cell over seeds, and the ablation's report), and the
 * test-seed ledger (`TestLooks`: its rules; `Ledger`: the file, recipe and checkpoint hashes).
 *
 * @since 0.1.0
 */
export * as Ablation from './Ablation.js'
export * as Grid from './Grid.js'
export * as Ledger from './Ledger.js'
export * as Progress from './Progress.js'
export * as Report from './Report.js'
export * as RunDir from './RunDir.js'
export * as TestLooks from './TestLooks.js'
