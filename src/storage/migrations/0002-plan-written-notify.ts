import { type Kysely, sql } from 'kysely'

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and typed against no schema (kysely's advice)
type AnyDb = Kysely<any>

// Every process caching plans hears when a date's plan is (re)written, whichever process wrote it.
const STATEMENTS = [
  `create function notify_plan_written() returns trigger language plpgsql as $$
    begin
      perform pg_notify('stockplan_plan_written', d::text) from (select distinct trade_date as d from new_rows) as written;
      return null;
    end $$`,
  `create trigger stock_daily_written after insert on stock_daily referencing new table as new_rows
    for each statement execute function notify_plan_written()`,
]

export async function up(db: AnyDb): Promise<void> {
  for (const statement of STATEMENTS) await sql.raw(statement).execute(db)
}

export async function down(db: AnyDb): Promise<void> {
  await sql.raw('drop trigger if exists stock_daily_written on stock_daily').execute(db)
  await sql.raw('drop function if exists notify_plan_written()').execute(db)
}
