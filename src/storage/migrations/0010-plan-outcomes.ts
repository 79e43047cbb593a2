import { type Kysely, sql } from 'kysely'

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and typed against no schema (kysely's advice)
type AnyDb = Kysely<any>

// Outcomes are written once, when T+h exists, and never updated: later data cannot change a published record.
const STATEMENTS = [
  `create table plan_outcomes (trade_date date not null, horizon integer not null check (horizon >= 1),
    code text not null, entry_date date not null, exit_date date not null, tradable boolean not null,
    reason text check (reason in ('suspended','limit_up_open','no_exit_price')),
    ret double precision, benchmark text not null, bench_ret double precision, universe_ret double precision,
    excess double precision, regime text, computed_at timestamptz not null default now(),
    primary key (horizon, trade_date, code),
    check (tradable = (reason is null)))`,
  `create table replay_runs (from_date date not null, to_date date not null, done_through date,
    updated_at timestamptz not null default now(), primary key (from_date, to_date))`,
]

export async function up(db: AnyDb): Promise<void> {
  for (const statement of STATEMENTS) await sql.raw(statement).execute(db)
}

export async function down(db: AnyDb): Promise<void> {
  await sql.raw('drop table if exists replay_runs').execute(db)
  await sql.raw('drop table if exists plan_outcomes').execute(db)
}
