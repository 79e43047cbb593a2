import { type Kysely, sql } from 'kysely'

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and typed against no schema (kysely's advice)
type AnyDb = Kysely<any>

// Concept boards (tushare ths_index / ths_daily): the boards by code with the name their members' theme_edges
// carry, and each board index's daily bars, which the build reads for the heat of a theme without curated events.
const STATEMENTS = [
  `create table concept_boards (
    code text primary key,
    name text not null,
    type text not null default ''
  )`,
  `create table concept_bars (
    code text not null,
    trade_date date not null,
    open double precision,
    high double precision,
    low double precision,
    close double precision not null,
    pre_close double precision,
    pct_change double precision,
    volume double precision,
    amount double precision,
    primary key (code, trade_date)
  )`,
  'create index concept_bars_date on concept_bars (trade_date)',
]

export async function up(db: AnyDb): Promise<void> {
  for (const statement of STATEMENTS) await sql.raw(statement).execute(db)
}

export async function down(db: AnyDb): Promise<void> {
  await sql.raw('drop table concept_bars').execute(db)
  await sql.raw('drop table concept_boards').execute(db)
}
