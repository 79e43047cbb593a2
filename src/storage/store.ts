import type { Config } from '../config.js'
import type { Logger } from '../logger.js'
import { createDb, type Db, type DbHandle } from './db.js'
import { startEmbeddedPostgres } from './embedded-postgres.js'
import { migrateToLatest } from './migrate.js'

export interface Store extends DbHandle {
  readonly db: Db
  readonly url: string
  readonly embedded: boolean
  /** Closes the pool, then stops the embedded server if this process started it. */
  close(): Promise<void>
}

export async function openStore(
  config: Pick<Config, 'databaseUrl' | 'pgDataDir'>,
  log: Logger,
  options: { migrate?: boolean; poolMax?: number } = {},
): Promise<Store> {
  const embedded = config.databaseUrl === undefined ? await startEmbeddedPostgres(config.pgDataDir, log) : undefined
  const url = config.databaseUrl ?? embedded!.url
  const handle = createDb(url, log, { max: options.poolMax })
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
  let closed = false
  return {
    ...handle,
    url,
    embedded: embedded !== undefined,
    async close() {
      if (closed) return
      closed = true
      await handle.db.destroy().catch(() => undefined)
      await embedded?.stop()
    },
  }
}
