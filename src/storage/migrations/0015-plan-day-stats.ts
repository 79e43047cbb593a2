import { type Kysely, sql } from 'kysely'

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and typed against no schema (kysely's advice)
type AnyDb = Kysely<any>

// Each plan day's track-record statistics per horizon (issue 28), written after its outcomes so that `evaluate`
// reads one row a day instead of every outcome row. They are derived from the day's tier and daily rows, which a
// rebuild of the day replaces: the triggers drop the day's statistics whenever either table's rows of that day
// are deleted or updated, and evaluate summarises a day without statistics from its rows (the next outcomes run
// writes them again). No insert trigger: a day has statistics only once it has rows, so new rows of a day come
// after a delete of its old ones, and an insert trigger would copy each day's 5,000 new rows into a transition
// table for nothing.
const STATEMENTS = [
  `create table plan_day_stats (
    horizon integer not null,
    trade_date date not null,
    entry_date date not null,
    benchmark text not null,
    stats json not null,
    computed_at timestamptz not null default now(),
    primary key (horizon, trade_date)
  )`,
  `create function drop_plan_day_stats() returns trigger language plpgsql as $$
    begin delete from plan_day_stats where trade_date in (select distinct trade_date from changed); return null; end $$`,
  `create function drop_all_plan_day_stats() returns trigger language plpgsql as $$
    begin delete from plan_day_stats; return null; end $$`,
  ...['tier_scores', 'stock_daily'].flatMap((table) => [
    `create trigger ${table}_stats_update after update on ${table} referencing old table as changed
      for each statement execute function drop_plan_day_stats()`,
    `create trigger ${table}_stats_delete after delete on ${table} referencing old table as changed
      for each statement execute function drop_plan_day_stats()`,
    `create trigger ${table}_stats_truncate after truncate on ${table}
      for each statement execute function drop_all_plan_day_stats()`,
  ]),
]

export async function up(db: AnyDb): Promise<void> {
  for (const statement of STATEMENTS) await sql.raw(statement).execute(db)
}

export async function down(db: AnyDb): Promise<void> {
  for (const table of ['tier_scores', 'stock_daily'])
    for (const event of ['update', 'delete', 'truncate'])
      await sql.raw(`drop trigger ${table}_stats_${event} on ${table}`).execute(db)
  await sql.raw('drop function drop_all_plan_day_stats()').execute(db)
  await sql.raw('drop function drop_plan_day_stats()').execute(db)
  await sql.raw('drop table plan_day_stats').execute(db)
}
