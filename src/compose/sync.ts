import { setTimeout as delay } from 'node:timers/promises'
import type { Config } from '../config.js'
import { createTushareClient } from '../datasource/tushare/client.js'
import { DEFAULT_BENCHMARK } from '../domain/outcomes.js'
import { importDirectory } from '../jobs/import/import-job.js'
import type { ChainStep } from '../jobs/job.js'
import { type Progress, silentProgress } from '../jobs/progress.js'
import { runSync, type SyncArgs, SyncInputError, type SyncResult } from '../jobs/sync.job.js'
import type { Logger } from '../logger.js'
import { createImportStore } from '../storage/import.repository.js'
import type { MarketDataRepository } from '../storage/market-data.repository.js'
import { createSyncGapsRepository } from '../storage/sync-gaps.repository.js'
import type { StoreHandle } from './repositories.js'

export type Sync = (args: SyncArgs, signal: AbortSignal, progress?: Progress) => Promise<SyncResult>

export interface SyncWiringDeps {
  readonly config: Config
  readonly log: Logger
  readonly store: StoreHandle
  readonly market: MarketDataRepository
  readonly now: () => Date
  readonly progress: Progress
  readonly fetch?: typeof fetch
}

/** The days from tushare into the store (TUSHARE_TOKEN), each day through the bundle import. */
export function createSync(deps: SyncWiringDeps): Sync {
  const { config, log, store, market, now } = deps
  return (args, signal, progress = deps.progress) => {
    const { token, url, callsPerMinute, rateLimits, callTimeoutMs, maxAnswerBytes, maxPages } = config.tushare
    if (!token) {
      return Promise.reject(new SyncInputError('TUSHARE_TOKEN is not set: set it to the token of your tushare account'))
    }
    const client = createTushareClient({
      url,
      token,
      callsPerMinute,
      rateLimits,
      fetch: deps.fetch ?? globalThis.fetch,
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
        progress,
        benchmark: DEFAULT_BENCHMARK,
        gaps: createSyncGapsRepository(store.pool),
        reportWindowDays: config.tushare.reportWindowDays,
        deadline: AbortSignal.timeout(config.tushare.syncTimeoutMs),
      },
      args,
      signal,
    )
  }
}

/** The chain's first step with TUSHARE_TOKEN set (none without): the days since the store's last complete day. */
export function syncStep(config: Config, sync: Sync): ChainStep | undefined {
  if (!config.tushare.token) return undefined
  return async (args, signal) => {
    const result = await sync(args.date ? { to: args.date } : {}, signal, silentProgress)
    // the chain never builds on a day whose bars tushare does not have yet
    if (result.stopped) throw new Error(`${result.stopped.reason} (${result.summary})`)
    return { ...result, date: result.days.at(-1) ?? args.date ?? '' }
  }
}
