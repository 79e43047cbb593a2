import { type Kysely, sql } from 'kysely'

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and typed against no schema (kysely's advice)
type AnyDb = Kysely<any>

// Trading days the tushare sync imported without all of an interface's rows (issue 39): tushare publishes
// adj_factor and daily_basic hours after daily, sometimes in part. One row per day and late interface, with how
// many of the day's codes it still lacks; every later sync asks for the day again and deletes the row once whole.
const STATEMENTS = [
  `create table sync_incomplete_days (
    trade_date date not null,
    interface text not null,
    missing integer not null check (missing > 0),
    first_seen timestamptz not null default now(),
    last_checked timestamptz not null default now(),
    primary key (trade_date, interface)
  )`,
]

export async function up(db: AnyDb): Promise<void> {
  for (const statement of STATEMENTS) await sql.raw(statement).execute(db)
}

export async function down(db: AnyDb): Promise<void> {
  await sql.raw('drop table sync_incomplete_days').execute(db)
}
