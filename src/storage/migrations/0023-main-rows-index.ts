import { type Kysely, sql } from 'kysely'

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and typed against no schema (kysely's advice)
type AnyDb = Kysely<any>

// PLAN_VERSION 6 reads the published `main` of the 20 plan dates before each build (holding streaks): about 20 rows
// a date among some 5,000. Without this index each date's whole day of rows is read to find them.
export async function up(db: AnyDb): Promise<void> {
  await sql`create index stock_daily_main on stock_daily (trade_date, card_rank) where verdict = 'main'`.execute(db)
}

export async function down(db: AnyDb): Promise<void> {
  await sql`drop index stock_daily_main`.execute(db)
}
