import { type ChainSteps, createChainSteps } from './compose/chain-steps.js'
import { createLookups } from './compose/lookups.js'
import { createPlanServing } from './compose/plan-serving.js'
import { createReplay } from './compose/replay.js'
import { createRepositories, type StoreHandle } from './compose/repositories.js'
import { createSync, syncStep } from './compose/sync.js'
import { createTrackRecordWiring } from './compose/track-record.js'
import type { Config } from './config.js'
import { runChain } from './jobs/chain.job.js'
import { type Progress, silentProgress } from './jobs/progress.js'
import type { ReplayArgs, ReplayResult } from './jobs/replay.job.js'
import type { SyncArgs, SyncResult } from './jobs/sync.job.js'
import type { Logger } from './logger.js'
import type { LatestDate } from './services/latest-date.js'
import type { LogicStateService } from './services/logic-state.service.js'
import type { OperationalSource } from './services/metrics.js'
import { createOperationalReadings, createSkillReadings, evaluateSkill } from './services/operational-readings.js'
import type { PlanObserver, PlanService } from './services/plan.service.js'
import type { PlanAssembler } from './services/plan-assembler.js'
import type { StockService } from './services/stock.service.js'
import type { TrackRecordService } from './services/track-record.service.js'
import type { VerdictService } from './services/verdict.service.js'
import type { MarketDataRepository } from './storage/market-data.repository.js'
import { createMonitoringRepository } from './storage/monitoring.repository.js'
import type { PlanFiles } from './storage/plan-files.js'
import type { PlanInputRepository } from './storage/plan-input.repository.js'
import type { TierRepository } from './storage/tier.repository.js'
import { resolveCodeVersion } from './version.js'

export type { StoreHandle } from './compose/repositories.js'

export interface Services {
  readonly config: Config
  readonly log: Logger
  readonly store: StoreHandle
  readonly tiers: TierRepository
  readonly market: MarketDataRepository
  readonly inputs: PlanInputRepository
  readonly files: PlanFiles
  readonly assembler: PlanAssembler
  readonly latestDate: LatestDate
  readonly plans: PlanService
  readonly verdicts: VerdictService
  readonly logicStates: LogicStateService
  readonly trackRecord: TrackRecordService
  readonly stocks: StockService
  readonly steps: ChainSteps
  readonly chain: (
    args: { date?: string },
    signal: AbortSignal,
    options?: Parameters<typeof runChain>[3],
  ) => ReturnType<typeof runChain>
  /** The days from tushare into the store (TUSHARE_TOKEN), each day through the bundle import. */
  readonly sync: (args: SyncArgs, signal: AbortSignal, progress?: Progress) => Promise<SyncResult>
  /** Build, plan and outcomes for each past trading day in order, with the chain's own step functions. */
  readonly replay: (args: ReplayArgs, signal: AbortSignal, progress?: Progress) => Promise<ReplayResult>
  close(): Promise<void>
}

export interface ServiceOptions {
  readonly progress?: Progress
  readonly now?: () => Date
  /** Keep a LISTEN connection for new tier dates (the server does; one-shot CLI commands need not). */
  readonly listen?: boolean
  readonly observe?: PlanObserver
  readonly fetch?: typeof fetch
}

/**
 * The composition root shared by the server, the CLI and the tests: everything is wired here and only here, one
 * area per factory in `compose/` (the store's repositories, plan serving, the lookups, the track record, the chain's
 * steps, the sync and the replay).
 */
export function createServices(
  config: Config,
  log: Logger,
  store: StoreHandle,
  options: ServiceOptions = {},
): Services {
  const now = options.now ?? (() => new Date())
  const progress = options.progress ?? silentProgress
  const repositories = createRepositories(config, store)
  const { tiers, market, inputs, files } = repositories
  const serving = createPlanServing({
    config,
    log,
    store,
    repositories,
    now: options.now,
    listen: options.listen,
    observe: options.observe,
    // the lookups are built over the serving's latest date and plans, and forget with it
    derived: { forgetDate: (date) => lookups.forgetDate(date), clear: () => lookups.clear() },
  })
  const { latestDate, plans } = serving
  const lookups = createLookups({ db: store.db, repositories, latestDate, plans, log })
  const trackRecord = createTrackRecordWiring(store.db, market)
  const codeVersion = lazyCodeVersion(config.codeCommit)
  const stepDeps = { config, store, repositories, serving, trackRecord, codeVersion, now, fetch: options.fetch }
  const steps = createChainSteps(stepDeps, { progress, log })
  const sync = createSync({ config, log, store, market, now, progress, fetch: options.fetch })
  const chainSync = syncStep(config, sync)
  return {
    config,
    log,
    store,
    tiers,
    market,
    inputs,
    files,
    assembler: serving.assembler,
    latestDate,
    plans,
    verdicts: lookups.verdicts,
    logicStates: lookups.logicStates,
    trackRecord: trackRecord.service,
    stocks: lookups.stocks,
    steps,
    sync,
    replay: createReplay({
      log,
      store,
      market,
      progress,
      stepsFor: (run) => createChainSteps(stepDeps, run),
      bookDays: trackRecord.bookDays,
    }),
    chain: (args, signal, chainOptions) =>
      runChain(
        { pool: store.pool, latestBarDate: () => market.latestBarDate(), steps, sync: chainSync },
        args,
        signal,
        chainOptions,
      ),
    close: () => latestDate.close(),
  }
}

/** The code's version, resolved on the first call (a build or a plan), so a process that only serves never asks git. */
function lazyCodeVersion(codeCommit: Config['codeCommit']): () => string {
  let version: string | undefined
  return () => {
    version ??= resolveCodeVersion(codeCommit).version
    return version
  }
}

/** What `/metrics` reads the plan's, the chain's, the store's and the skill's gauges from (the server's registry). */
export function createOperationalSource(
  services: Pick<Services, 'store' | 'latestDate' | 'trackRecord' | 'log' | 'files'>,
  now: () => number = Date.now,
): OperationalSource {
  return {
    readings: createOperationalReadings({
      repository: createMonitoringRepository(services.store.db),
      latestPlanDate: () => services.latestDate.get(),
      poolSize: (date) => services.files.poolSize(date),
      now,
      log: services.log,
    }),
    skill: createSkillReadings({ evaluate: () => evaluateSkill(services.trackRecord, now()), now, log: services.log }),
  }
}
