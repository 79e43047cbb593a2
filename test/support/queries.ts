import { sql } from 'kysely'
import type { TestDatabase } from './test-db.js'

/** The rows of a raw SQL query against the test database. */
export async function rows(t: TestDatabase, query: string): Promise<Record<string, unknown>[]> {
  return (await sql.raw(query).execute(t.db)).rows as Record<string, unknown>[]
}

/** The error `promise` rejects with; throws when it resolves. */
export async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise
  } catch (err) {
    return err as Error
  }
  throw new Error('expected a failure')
}
