import { setTimeout as delay } from 'node:timers/promises'
import type pg from 'pg'
import type { Config } from './config.js'
import { createTushareClient } from './datasource/tushare/client.js'
import { DEFAULT_BENCHMARK } from './domain/outcomes.js'
import { WEIGHT_RULES } from './domain/signal-weights.js'
import { SIGNAL_WINDOWS } from './domain/signals.js'
import { runBuild } from './jobs/build.job.js'
import { runChain } from './jobs/chain.job.js'
import { importDirectory } from './jobs/import/import-job.js'
import type { ChainStep } from './jobs/job.js'
import { runOutcomes } from './jobs/outcomes.job.js'
import { runPlan } from './jobs/plan.job.js'
import { type Progress, silentProgress } from './jobs/progress.js'
import { runPushPool } from './jobs/push-pool.job.js'
import { type ReplayArgs, type ReplayResult, runReplay } from './jobs/replay.job.js'
import { runSync, type SyncArgs, SyncInputError, type SyncResult } from './jobs/sync.job.js'
import { createWriteBehind, type WriteBehind } from './jobs/write-behind.js'
import type { Logger } from './logger.js'
import { createLatestDate, type LatestDate } from './services/latest-date.js'
import { createLogicStateService, type LogicStateService } from './services/logic-state.service.js'
import type { OperationalSource } from './services/metrics.js'
import { createOperationalReadings, createSkillReadings, evaluateSkill } from './services/operational-readings.js'
import { createPlanService, type PlanObserver, type PlanService } from './services/plan.service.js'
import { createPlanAssembler, type PlanAssembler } from './services/plan-assembler.js'
import { createPlanDays } from './services/plan-days.js'
import { createStockService, type StockService } from './services/stock.service.js'
import { createTrackRecordService, type TrackRecordService } from './services/track-record.service.js'
import { createTrackRecordDays } from './services/track-record-days.js'
import { createVerdictService, type VerdictService } from './services/verdict.service.js'
import { loadMarketHistory, type MarketHistory } from './storage/bar-history.js'
import type { Db } from './storage/db.js'
import { createImportStore } from './storage/import.repository.js'
import { createLookupRepository } from './storage/lookup.repository.js'
import { createMarketDataRepository, type MarketDataRepository } from './storage/market-data.repository.js'
import { createMonitoringRepository } from './storage/monitoring.repository.js'
import { createOutcomesRepository, type OutcomesRepository } from './storage/outcomes.repository.js'
import { createPlanDayStatsRepository } from './storage/plan-day-stats.repository.js'
import { createPlanFiles, type PlanFiles } from './storage/plan-files.js'
import { createPlanInputRepository, type PlanInputRepository } from './storage/plan-input.repository.js'
import { createReplayMemo, type ReplayMemo } from './storage/replay-memo.js'
import { createReplayRunsRepository } from './storage/replay-runs.repository.js'
import { createSignalIcRepository } from './storage/signal-ic.repository.js'
import { createStockRepository } from './storage/stock.repository.js'
import { storeChangeListener } from './storage/store-changes.js'
import { createSyncGapsRepository } from './storage/sync-gaps.repository.js'
import { createTierRepository, type TierRepository } from './storage/tier.repository.js'
import { createTrackRecordRepository } from './storage/track-record.repository.js'
import { resolveCodeVersion } from './version.js'

export interface StoreHandle {
  readonly db: Db
  readonly pool: pg.Pool
  readonly url?: string
}

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
  readonly steps: Readonly<{ build: ChainStep; plan: ChainStep; 'push-pool': ChainStep; outcomes: ChainStep }>
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

/** The composition root shared by the server, the CLI and the tests: everything is wired here and only here. */
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

export function createServices(
  config: Config,
  log: Logger,
  store: StoreHandle,
  options: ServiceOptions = {},
): Services {
  const now = options.now ?? (() => new Date())
  const progress = options.progress ?? silentProgress
  const tiers = createTierRepository(store.db)
  const market = createMarketDataRepository(store.db)
  const inputs = createPlanInputRepository(store.db)
  const files = createPlanFiles(config.planDataDir)
  const assembler = createPlanAssembler({ inputs, planVersion: config.planVersion, now })
  // Date.now itself unless a clock is injected: a cached plan hit reads the time twice, and a Date each is garbage
  const nowMs: () => number = options.now ? () => now().getTime() : Date.now
  const forgetPlan = (date: string): void => {
    plans.forget(date)
    verdicts.forgetDate(date)
    logicStates.forgetDate(date)
  }
  const latestDate = createLatestDate({
    listen:
      options.listen && store.url
        ? storeChangeListener({ url: store.url, log, timings: { heartbeatMs: config.storeHeartbeatMs } })
        : undefined,
    query: () => tiers.latestDate(),
    log,
    onPlanWritten: forgetPlan,
    onTierChanged: () => forgetTiers(),
    onResync: () => {
      plans.forget()
      forgetTiers()
    },
  })
  const plans = createPlanService({
    days: createPlanDays({
      assembler,
      files,
      fromSnapshot: config.planFromSnapshot,
      log,
      now: nowMs,
      observe: options.observe,
    }),
    files,
    latestDate,
    log,
    cacheSec: config.planCacheSec,
    now: nowMs,
    observe: options.observe,
  })
  // a build changed tier rows: the latest date, and what the lookups kept from the old rows
  function forgetTiers(): void {
    latestDate.invalidate()
    verdicts.clear()
    logicStates.clear()
  }
  const verdicts = createVerdictService({ inputs, market, tiers, latestDate, plans, log })
  const logicStates = createLogicStateService({ lookups: createLookupRepository(store.db), market, latestDate, log })
  // resolved on the first build or plan, so a process that only serves never asks git
  let version: string | undefined
  const codeVersion = (): string => {
    version ??= resolveCodeVersion(config.codeCommit).version
    return version
  }
  const signalIc = createSignalIcRepository(store.db)
  /** The regime status published with a plan date's snapshot, or null when it cannot be read. */
  const snapshotRegime = async (date: string): Promise<string | null> => {
    const read = await files.readSnapshot(date)
    return read.ok ? (read.snapshot.regime?.status ?? null) : null
  }
  const trackRecords = createTrackRecordRepository(store.db)
  const planDayStats = createPlanDayStatsRepository(store.db)
  const trackRecordDays = createTrackRecordDays({ records: trackRecords, stats: planDayStats })
  // Bound to a progress and a logger: the replay runs the same steps quietly under its own bar.
  const stepsWith = (
    progress: Progress,
    log: Logger,
    history?: MarketHistory,
    memo?: ReplayMemo,
    writeBehind?: WriteBehind,
  ) => {
    // a replay's steps read the day's quotes from its history and what it wrote from its memo
    const stepInputs = memo ? memo.planInputs(inputs) : inputs
    const planAssembler = history
      ? createPlanAssembler({
          inputs: { ...stepInputs, quotes: history.quotes },
          planVersion: config.planVersion,
          now,
        })
      : assembler
    const dayStats = memo
      ? createTrackRecordDays({ records: memo.trackRecords(trackRecords), stats: memo.dayStats(planDayStats) })
      : trackRecordDays
    const outcomesRepo = outcomesReading(createOutcomesRepository(store.db, store.pool), history)
    return {
      build: (args: { date?: string }, signal: AbortSignal) =>
        runBuild(
          {
            db: store.db,
            pool: store.pool,
            market,
            log,
            progress,
            codeVersion: codeVersion(),
            now,
            history,
            icHistory: (asOf, days, definitions) => signalIc.history(WEIGHT_RULES.horizon, asOf, days, definitions),
            previousMain: async (date) => {
              const before = await stepInputs.previousTierDate(date)
              return new Set(before === undefined ? [] : ((await stepInputs.storedMain(before)) ?? []))
            },
            onBuilt: forgetTiers,
            onScored: memo?.keepTiers,
            writeBehind: writeBehind?.defer,
          },
          args,
          signal,
        ),
      plan: (args: { date?: string }, signal: AbortSignal) =>
        runPlan(
          {
            db: store.db,
            pool: store.pool,
            latestTierDate: () => tiers.latestDate(),
            market,
            assembler: planAssembler,
            files,
            log,
            planVersion: config.planVersion,
            codeVersion: codeVersion(),
            now,
            onPlanWritten: forgetPlan,
            marketInput: history?.marketInput,
            onDailyWritten: memo?.keepDaily,
            writeBehind: writeBehind?.defer,
          },
          args,
          signal,
        ),
      'push-pool': (args: { date?: string }, signal: AbortSignal) =>
        runPushPool(
          {
            latestDate: () => tiers.latestDate(),
            getFull: (date) => plans.getFull(date),
            files,
            log,
            poolTop: config.poolTop,
            poolMax: config.poolMax,
            pushUrl: config.poolPushUrl,
            fetch: options.fetch,
          },
          args,
          signal,
        ),
      outcomes: (args: { date?: string }, signal: AbortSignal) =>
        runOutcomes(
          {
            outcomes: memo ? memo.outcomes(outcomesRepo, writeBehind?.defer) : outcomesRepo,
            signalIc: memo ? memo.signalIc(signalIc) : signalIc,
            market,
            regimeOf: memo ? memo.regimeOf(snapshotRegime) : snapshotRegime,
            latestBarDate: () => market.latestBarDate(),
            benchmark: DEFAULT_BENCHMARK,
            writeDayStats: (horizon, signal) => dayStats.writeMissing(horizon, DEFAULT_BENCHMARK, signal),
            log,
          },
          args,
          signal,
        ),
    }
  }
  const steps = stepsWith(progress, log)
  /** The replay's market, read once for the whole range and its look-back. */
  async function replayHistory(args: { from: string; to: string }): Promise<MarketHistory | undefined> {
    const calendar = await market.calendar(args.to)
    const first = calendar.findIndex((d) => d >= args.from)
    if (first < 0) return undefined
    return loadMarketHistory(store.db, calendar[Math.max(0, first - SIGNAL_WINDOWS.history)]!, args.to)
  }
  const sync = (args: SyncArgs, signal: AbortSignal, syncProgress: Progress = progress): Promise<SyncResult> => {
    const { token, url, callsPerMinute, rateLimits, callTimeoutMs, maxAnswerBytes, maxPages } = config.tushare
    if (!token) {
      return Promise.reject(new SyncInputError('TUSHARE_TOKEN is not set: set it to the token of your tushare account'))
    }
    const client = createTushareClient({
      url,
      token,
      callsPerMinute,
      rateLimits,
      fetch: options.fetch ?? globalThis.fetch,
      now: () => now().getTime(),
      sleep: (ms, signal) => delay(ms, undefined, { signal }),
      log,
      callTimeoutMs,
      maxAnswerBytes,
      maxPages,
    })
    const importBundle = (dir: string, signal: AbortSignal) =>
      importDirectory(
        { imports: createImportStore(store.pool), log, progress: silentProgress },
        { dir, format: 'tushare' },
        signal,
      )
    return runSync(
      {
        client,
        importBundle,
        latestBarDate: () => market.latestBarDate(),
        // the trading day in Shanghai
        today: () => new Date(now().getTime() + 8 * 3_600_000).toISOString().slice(0, 10),
        log,
        progress: syncProgress,
        benchmark: DEFAULT_BENCHMARK,
        gaps: createSyncGapsRepository(store.pool),
        reportWindowDays: config.tushare.reportWindowDays,
        deadline: AbortSignal.timeout(config.tushare.syncTimeoutMs),
      },
      args,
      signal,
    )
  }
  const syncStep: ChainStep | undefined = config.tushare.token
    ? async (args, signal) => {
        const result = await sync(args.date ? { to: args.date } : {}, signal, silentProgress)
        // the chain never builds on a day whose bars tushare does not have yet
        if (result.stopped) throw new Error(`${result.stopped.reason} (${result.summary})`)
        return { ...result, date: result.days.at(-1) ?? args.date ?? '' }
      }
    : undefined
  return {
    config,
    log,
    store,
    tiers,
    market,
    inputs,
    files,
    assembler,
    latestDate,
    plans,
    verdicts,
    logicStates,
    trackRecord: createTrackRecordService({ repository: trackRecords, days: trackRecordDays }),
    stocks: createStockService({ stocks: createStockRepository(store.db), latestDate }),
    steps,
    sync,
    replay: async (args, signal, replayProgress = progress) => {
      const writeBehind = createWriteBehind()
      return runReplay(
        {
          pool: store.pool,
          calendar: (to) => market.calendar(to),
          steps: stepsWith(
            silentProgress,
            log.level === 'debug' || log.level === 'trace' ? log : log.child({}, { level: 'warn' }),
            await replayHistory(args),
            createReplayMemo(),
            writeBehind,
          ),
          flushWrites: writeBehind.flush,
          runs: createReplayRunsRepository(store.db),
          progress: replayProgress,
          log,
        },
        args,
        signal,
      )
    },
    chain: (args, signal, chainOptions) =>
      runChain(
        { pool: store.pool, latestBarDate: () => market.latestBarDate(), steps, sync: syncStep },
        args,
        signal,
        chainOptions,
      ),
    close: () => latestDate.close(),
  }
}

/** What `/metrics` reads the plan's, the chain's, the store's and the skill's gauges from (the server's registry). */
export function createOperationalSource(
  services: Pick<Services, 'store' | 'latestDate' | 'trackRecord' | 'log'>,
  now: () => number = Date.now,
): OperationalSource {
  return {
    readings: createOperationalReadings({
      repository: createMonitoringRepository(services.store.db),
      latestPlanDate: () => services.latestDate.get(),
      now,
      log: services.log,
    }),
    skill: createSkillReadings({ evaluate: () => evaluateSkill(services.trackRecord, now()), now, log: services.log }),
  }
}
