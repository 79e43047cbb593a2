import { type Kysely, sql } from 'kysely'

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and typed against no schema (kysely's advice)
type AnyDb = Kysely<any>

// Issue 47 measures each plan day's universe as the book's own day (held overnight, rebalanced at the next open into
// the names buyable then, listing age screened) and adds its size, reversal and matched legs: the facts stored
// under the old close-to-close definition are dropped. The report computes a day without a row from the store's
// rows, and the outcomes step (or a replay) stores it again.
export async function up(db: AnyDb): Promise<void> {
  await sql`delete from plan_day_book`.execute(db)
}

// nothing to restore: an older build computes its own facts for the days without a row
export async function down(_db: AnyDb): Promise<void> {}
