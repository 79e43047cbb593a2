import type pg from 'pg'
import { throwIfAborted } from '../abort.js'

export class ChainBusyError extends Error {
  override name = 'ChainBusyError'
}

const POLL_MS = 250

/**
 * Runs `fn` holding a PostgreSQL advisory lock for the date, so two processes or replicas never run the chain
 * for one date at once. `wait` polls until the lock is free (abortable); `try` refuses at once.
 */
export async function withChainLock<T>(
  pool: pg.Pool,
  date: string,
  mode: 'wait' | 'try',
  signal: AbortSignal,
  fn: () => Promise<T>,
): Promise<T> {
  const client = await pool.connect()
  const key = `stockplan-chain:${date}`
  let locked = false
  try {
    for (;;) {
      throwIfAborted(signal)
      const { rows } = await client.query<{ ok: boolean }>('select pg_try_advisory_lock(hashtext($1)) as ok', [key])
      if (rows[0]?.ok) {
        locked = true
        break
      }
      if (mode === 'try')
        throw new ChainBusyError(`another chain run holds the lock for ${date}; try again when it ends`)
      await new Promise((resolve) => setTimeout(resolve, POLL_MS))
    }
    return await fn()
  } finally {
    if (locked) await client.query('select pg_advisory_unlock(hashtext($1))', [key]).catch(() => undefined)
    client.release()
  }
}
