import type { Config } from '../config.js'
import type { Logger } from '../logger.js'
import { createDb, type Db, type DbHandle, type DbOptions } from './db.js'
import { startEmbeddedPostgres } from './embedded-postgres.js'
import { migrateToLatest } from './migrate.js'
import { describeUrl, probeDatabaseUrl } from './startup-errors.js'

export interface Store extends DbHandle {
  readonly db: Db
  readonly url: string
  readonly embedded: boolean
  /** From now on restart the embedded server if it dies (see RunningPostgres.supervise); no-op otherwise. */
  supervise(): void
  /** Closes the pool, then stops the embedded server if this process started it. */
  close(): Promise<void>
}

export interface StoreOptions extends Pick<DbOptions, 'statementTimeoutMs' | 'acquireTimeoutMs'> {
  readonly migrate?: boolean
  readonly poolMax?: number
  /** Restart the embedded server if it dies (the long-running server does; one-shot commands need not). */
  readonly supervise?: boolean
}

export async function openStore(
  config: Pick<Config, 'databaseUrl' | 'pgDataDir' | 'pgPort'>,
  log: Logger,
  options: StoreOptions = {},
): Promise<Store> {
  // the server announces it (start-up deadlines are timed from it); a one-shot command keeps its output to its steps
  const announce = options.supervise ? log.info.bind(log) : log.debug.bind(log)
  announce(
    config.databaseUrl !== undefined ? { database: describeUrl(config.databaseUrl) } : { pgDataDir: config.pgDataDir },
    'opening the store',
  )
  if (config.databaseUrl !== undefined) await probeDatabaseUrl(config.databaseUrl)
  const embedded =
    config.databaseUrl === undefined
      ? await startEmbeddedPostgres(config.pgDataDir, log, { port: config.pgPort })
      : undefined
  const url = config.databaseUrl ?? embedded!.url
  const handle = createDb(url, log, {
    max: options.poolMax,
    statementTimeoutMs: options.statementTimeoutMs,
    acquireTimeoutMs: options.acquireTimeoutMs,
  })
  try {
    if (options.migrate !== false) {
      const applied = await migrateToLatest(handle.db)
      if (applied.length > 0) log.info({ applied }, 'migrations applied')
    }
  } catch (err) {
    await handle.db.destroy().catch(() => undefined)
    await embedded?.stop().catch(() => undefined)
    throw err
  }
  if (options.supervise) embedded?.supervise()
  let closed = false
  return {
    ...handle,
    url,
    embedded: embedded !== undefined,
    supervise: () => embedded?.supervise(),
    async close() {
      if (closed) return
      closed = true
      await handle.db.destroy().catch(() => undefined)
      await embedded?.stop()
    },
  }
}
