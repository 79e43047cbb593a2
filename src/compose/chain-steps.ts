import type { Config } from '../config.js'
import { EDGE_RULES } from '../domain/expected-edge.js'
import { holdingStreaks } from '../domain/holding-streak.js'
import { DEFAULT_BENCHMARK } from '../domain/outcomes.js'
import { PLAN_VERSION } from '../domain/plan-version.js'
import { WEIGHT_RULES } from '../domain/signal-weights.js'
import { runBuild } from '../jobs/build.job.js'
import type { ChainStep } from '../jobs/job.js'
import { runOutcomes } from '../jobs/outcomes.job.js'
import { runPlan } from '../jobs/plan.job.js'
import type { Progress } from '../jobs/progress.js'
import { runPushPool } from '../jobs/push-pool.job.js'
import type { WriteBehind } from '../jobs/write-behind.js'
import type { Logger } from '../logger.js'
import { createPlanAssembler } from '../services/plan-assembler.js'
import type { MarketHistory } from '../storage/bar-history.js'
import { createOutcomesRepository, type OutcomesRepository } from '../storage/outcomes.repository.js'
import type { PlanFiles } from '../storage/plan-files.js'
import type { PlanInputRepository } from '../storage/plan-input.repository.js'
import type { ReplayMemo } from '../storage/replay-memo.js'
import type { PlanServing } from './plan-serving.js'
import type { Repositories, StoreHandle } from './repositories.js'
import type { TrackRecordWiring } from './track-record.js'

export type ChainSteps = Readonly<{ build: ChainStep; plan: ChainStep; 'push-pool': ChainStep; outcomes: ChainStep }>

export interface ChainStepsDeps {
  readonly config: Config
  readonly store: StoreHandle
  readonly repositories: Repositories
  readonly serving: Pick<PlanServing, 'assembler' | 'plans' | 'forgetPlan' | 'forgetTiers'>
  readonly trackRecord: Pick<TrackRecordWiring, 'days' | 'bookDays'>
  /** The code's version, resolved on the first build or plan (a process that only serves never asks git). */
  readonly codeVersion: () => string
  readonly now: () => Date
  readonly fetch?: typeof fetch
}

/**
 * What one set of steps runs under: the chain's progress and logger, or a replay's quiet ones with its market read
 * once (`history`), what it wrote kept in memory (`memo`) and the writes it lets run behind the next step.
 */
export interface StepRun {
  readonly progress: Progress
  readonly log: Logger
  readonly history?: MarketHistory
  readonly memo?: ReplayMemo
  readonly writeBehind?: WriteBehind
}

export function createChainSteps(deps: ChainStepsDeps, run: StepRun): ChainSteps {
  // a replay's steps read what it wrote from its memo
  const inputs = run.memo ? run.memo.planInputs(deps.repositories.inputs) : deps.repositories.inputs
  return {
    build: buildStep(deps, run, inputs),
    plan: planStep(deps, run, inputs),
    'push-pool': pushPoolStep(deps, run.log),
    outcomes: outcomesStep(deps, run),
  }
}

function buildStep(deps: ChainStepsDeps, run: StepRun, inputs: PlanInputRepository): ChainStep {
  const { store, repositories, serving } = deps
  const { signalIc } = repositories
  return (args, signal) =>
    runBuild(
      {
        db: store.db,
        pool: store.pool,
        market: repositories.market,
        log: run.log,
        progress: run.progress,
        codeVersion: deps.codeVersion(),
        bookSize: deps.config.planBookSizeCny,
        now: deps.now,
        history: run.history,
        icHistory: (asOf, days, definitions) => signalIc.history(WEIGHT_RULES.horizon, asOf, days, definitions),
        previousMain: async (date) => holdingStreaks(await inputs.publishedMains(date, EDGE_RULES.horizon)),
        onBuilt: serving.forgetTiers,
        onScored: run.memo?.keepTiers,
        writeBehind: run.writeBehind?.defer,
      },
      args,
      signal,
    )
}

function planStep(deps: ChainStepsDeps, run: StepRun, inputs: PlanInputRepository): ChainStep {
  const { store, repositories, serving } = deps
  // a replay's plan reads the day's quotes from its history
  const assembler = run.history
    ? createPlanAssembler({
        inputs: { ...inputs, quotes: run.history.quotes },
        planVersion: PLAN_VERSION,
        now: deps.now,
      })
    : serving.assembler
  return (args, signal) =>
    runPlan(
      {
        db: store.db,
        pool: store.pool,
        latestTierDate: () => repositories.tiers.latestDate(),
        market: repositories.market,
        assembler,
        files: repositories.files,
        log: run.log,
        planVersion: PLAN_VERSION,
        codeVersion: deps.codeVersion(),
        now: deps.now,
        onPlanWritten: serving.forgetPlan,
        marketInput: run.history?.marketInput,
        onDailyWritten: run.memo?.keepDaily,
        writeBehind: run.writeBehind?.defer,
      },
      args,
      signal,
    )
}

function pushPoolStep(deps: ChainStepsDeps, log: Logger): ChainStep {
  const { config, repositories, serving } = deps
  return (args, signal) =>
    runPushPool(
      {
        latestDate: () => repositories.tiers.latestDate(),
        getFull: (date) => serving.plans.getFull(date),
        files: repositories.files,
        log,
        poolTop: config.poolTop,
        poolMax: config.poolMax,
        pushUrl: config.poolPushUrl,
        fetch: deps.fetch,
      },
      args,
      signal,
    )
}

function outcomesStep(deps: ChainStepsDeps, run: StepRun): ChainStep {
  const { store, repositories } = deps
  const { market, signalIc } = repositories
  const { memo, writeBehind } = run
  const outcomes = outcomesReading(createOutcomesRepository(store.db, store.pool), run.history)
  const dayStats = deps.trackRecord.days(memo)
  const regimeOf = snapshotRegime(repositories.files)
  return (args, signal) =>
    runOutcomes(
      {
        outcomes: memo ? memo.outcomes(outcomes, writeBehind?.defer) : outcomes,
        signalIc: memo ? memo.signalIc(signalIc) : signalIc,
        market,
        regimeOf: memo ? memo.regimeOf(regimeOf) : regimeOf,
        latestBarDate: () => market.latestBarDate(),
        benchmark: DEFAULT_BENCHMARK,
        writeDayStats: (horizon, signal) => dayStats.writeMissing(horizon, DEFAULT_BENCHMARK, signal),
        // a replay's tier rows may still be on their way to the store: it stores the book's facts at its end
        writeBookDays: memo ? undefined : deps.trackRecord.bookDays.writeMissing,
        log: run.log,
      },
      args,
      signal,
    )
}

/** The outcomes repository, its entry and exit bars read from a replay's history for the dates it holds. */
function outcomesReading(repo: OutcomesRepository, history: MarketHistory | undefined): OutcomesRepository {
  if (!history) return repo
  const held = (date: string) => date >= history.from && date <= history.to
  return {
    ...repo,
    entryBars: (date, codes) => (held(date) ? history.entryBars(date, codes) : repo.entryBars(date, codes)),
    exitBars: (date, codes) => (held(date) ? history.exitBars(date, codes) : repo.exitBars(date, codes)),
  }
}

/** The regime status published with a plan date's snapshot, or null when it cannot be read. */
function snapshotRegime(files: PlanFiles): (date: string) => Promise<string | null> {
  return async (date) => {
    const read = await files.readSnapshot(date)
    return read.ok ? (read.snapshot.regime?.status ?? null) : null
  }
}
