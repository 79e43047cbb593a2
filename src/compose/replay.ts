import { SIGNAL_WINDOWS } from '../domain/signals.js'
import type { Progress } from '../jobs/progress.js'
import { silentProgress } from '../jobs/progress.js'
import { type ReplayArgs, type ReplayResult, runReplay } from '../jobs/replay.job.js'
import { createWriteBehind } from '../jobs/write-behind.js'
import type { Logger } from '../logger.js'
import type { BookDays } from '../services/book-days.js'
import { loadMarketHistory, type MarketHistory } from '../storage/bar-history.js'
import type { MarketDataRepository } from '../storage/market-data.repository.js'
import { createReplayMemo } from '../storage/replay-memo.js'
import { createReplayRunsRepository } from '../storage/replay-runs.repository.js'
import type { ChainSteps, StepRun } from './chain-steps.js'
import type { StoreHandle } from './repositories.js'

export type Replay = (args: ReplayArgs, signal: AbortSignal, progress?: Progress) => Promise<ReplayResult>

export interface ReplayWiringDeps {
  readonly log: Logger
  readonly store: StoreHandle
  readonly market: MarketDataRepository
  readonly progress: Progress
  /** The chain's own step functions, bound to a run. */
  readonly stepsFor: (run: StepRun) => ChainSteps
  /** The main book's per-plan-day facts, stored once the replay's tier rows all are. */
  readonly bookDays: Pick<BookDays, 'writeMissing'>
}

/** Build, plan and outcomes for each past trading day in order, quietly, under the replay's own bar. */
export function createReplay(deps: ReplayWiringDeps): Replay {
  const { log, store, market } = deps
  return async (args, signal, progress = deps.progress) => {
    const writeBehind = createWriteBehind()
    const result = await runReplay(
      {
        pool: store.pool,
        calendar: (to) => market.calendar(to),
        steps: deps.stepsFor({
          progress: silentProgress,
          log: log.level === 'debug' || log.level === 'trace' ? log : log.child({}, { level: 'warn' }),
          history: await replayHistory(store, market, args),
          memo: createReplayMemo(),
          writeBehind,
        }),
        flushWrites: writeBehind.flush,
        runs: createReplayRunsRepository(store.db),
        progress,
        log,
      },
      args,
      signal,
    )
    // the days' tier rows are all stored now: the book's per-day facts can be read from them
    const started = performance.now()
    const bookFacts = await deps.bookDays.writeMissing(signal, progress)
    log.info({ days: bookFacts, seconds: Math.round(performance.now() - started) / 1000 }, 'book facts stored')
    return result
  }
}

/** The replay's market, read once for the whole range and its look-back. */
async function replayHistory(
  store: StoreHandle,
  market: MarketDataRepository,
  args: { from: string; to: string },
): Promise<MarketHistory | undefined> {
  const calendar = await market.calendar(args.to)
  const first = calendar.findIndex((d) => d >= args.from)
  if (first < 0) return undefined
  return loadMarketHistory(store.db, calendar[Math.max(0, first - SIGNAL_WINDOWS.history)]!, args.to)
}
