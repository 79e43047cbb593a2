import { createTushareClient, type TushareClient } from '../../src/datasource/tushare/client.js'
import { importDirectory } from '../../src/jobs/import/import-job.js'
import { silentProgress } from '../../src/jobs/progress.js'
import type { SyncDeps } from '../../src/jobs/sync.job.js'
import type { Logger } from '../../src/logger.js'
import { createImportStore } from '../../src/storage/import.repository.js'
import { createSyncGapsRepository } from '../../src/storage/sync-gaps.repository.js'
import { rows } from './queries.js'
import type { TestDatabase } from './test-db.js'

/** The store side of a sync in a test: the bundle import, the last stored bar date and the incomplete days. */
export function syncStore(t: TestDatabase, log: Logger): Pick<SyncDeps, 'importBundle' | 'latestBarDate' | 'gaps'> {
  return {
    importBundle: (dir, signal) =>
      importDirectory(
        { imports: createImportStore(t.pool), log, progress: silentProgress },
        { dir, format: 'tushare' },
        signal,
      ),
    latestBarDate: async () => {
      const [row] = await rows(t, 'select max(trade_date)::text as d from daily_bars')
      return (row?.d as string | null) ?? undefined
    },
    gaps: createSyncGapsRepository(t.pool),
  }
}

/** A sync's whole dependencies in a test: `client` against the test database, on `today`, benchmark 000300.SH. */
export function syncDeps(t: TestDatabase, client: TushareClient, log: Logger, today: string): SyncDeps {
  return {
    client,
    ...syncStore(t, log),
    today: () => today,
    log,
    progress: silentProgress,
    benchmark: '000300.SH',
    reportWindowDays: 5,
  }
}

/** A tushare client against a local stand-in: unpaced, no waits, a 10 s call deadline, 16 MiB answers, 50 pages. */
export function standInClient(
  url: string,
  token: string,
  log: Logger,
  maxAnswerBytes = 16 * 1024 * 1024,
): TushareClient {
  return createTushareClient({
    url,
    token,
    callsPerMinute: 0,
    rateLimits: {},
    fetch: globalThis.fetch,
    now: () => 0,
    sleep: async () => undefined,
    log,
    callTimeoutMs: 10_000,
    maxAnswerBytes,
    maxPages: 50,
  })
}
