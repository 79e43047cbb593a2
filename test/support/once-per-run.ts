import { readFile, writeFile } from 'node:fs/promises'
import pg from 'pg'
import { inject } from 'vitest'

/**
 * Builds something once per test run, whichever worker process asks first: that one builds under an advisory lock
 * on the run's PostgreSQL and writes `marker` (JSON of what `build` returned); later callers wait on the lock and
 * read the marker. `build` gets the admin connection that holds the lock.
 */
export async function oncePerRun<T>(key: string, marker: string, build: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: inject('pgAdminUrl') })
  await admin.connect()
  try {
    await admin.query('select pg_advisory_lock(hashtext($1))', [key])
    const built = await readFile(marker, 'utf8').catch(() => undefined)
    if (built !== undefined) return JSON.parse(built) as T
    const value = await build(admin)
    await writeFile(marker, JSON.stringify(value))
    return value
  } finally {
    await admin.query('select pg_advisory_unlock(hashtext($1))', [key]).catch(() => undefined)
    await admin.end()
  }
}
