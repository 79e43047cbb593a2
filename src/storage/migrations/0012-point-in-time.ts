import { type Kysely, sql } from 'kysely'

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and typed against no schema (kysely's advice)
type AnyDb = Kysely<any>

// Point in time: what a build on date T may see. '-infinity' marks rows that hold on every date (files without
// the date columns), so they stay part of the primary key without a NULL.
const STATEMENTS = [
  // tushare trade_cal: every calendar day with its open flag; dates outside its range fall back to index bars
  'create table trading_calendar (cal_date date primary key, is_open boolean not null)',
  // ST periods (namechange names with ST, or stock_st days); end_date NULL = still ST
  `create table st_periods (code text not null, start_date date not null, end_date date, name text not null default '',
    primary key (code, start_date))`,
  `alter table securities add column list_status text check (list_status in ('L','D','P'))`,
  'alter table daily_bars add column up_limit double precision, add column down_limit double precision',
  // every announced version of a report: a restatement is a new row with its own announcement date
  'alter table financials drop constraint financials_pkey, add primary key (code, end_date, ann_date)',
  'create index financials_ann on financials (code, ann_date)',
  `alter table theme_edges add column valid_from date not null default '-infinity', add column valid_to date,
    drop constraint theme_edges_pkey, add primary key (theme, segment, code, valid_from)`,
  `alter table holdings add column as_of date not null default '-infinity',
    drop constraint holdings_pkey, add primary key (code, as_of)`,
]

export async function up(db: AnyDb): Promise<void> {
  for (const statement of STATEMENTS) await sql.raw(statement).execute(db)
}

export async function down(db: AnyDb): Promise<void> {
  const statements = [
    `delete from holdings h using holdings newer where newer.code = h.code and newer.as_of > h.as_of`,
    'alter table holdings drop constraint holdings_pkey, drop column as_of, add primary key (code)',
    `delete from theme_edges e using theme_edges newer where (newer.theme, newer.segment, newer.code) =
      (e.theme, e.segment, e.code) and newer.valid_from > e.valid_from`,
    `alter table theme_edges drop constraint theme_edges_pkey, drop column valid_from, drop column valid_to,
      add primary key (theme, segment, code)`,
    'drop index if exists financials_ann',
    `delete from financials f using financials newer where (newer.code, newer.end_date) = (f.code, f.end_date)
      and newer.ann_date > f.ann_date`,
    'alter table financials drop constraint financials_pkey, add primary key (code, end_date)',
    'alter table daily_bars drop column up_limit, drop column down_limit',
    'alter table securities drop column list_status',
    'drop table if exists st_periods',
    'drop table if exists trading_calendar',
  ]
  for (const statement of statements) await sql.raw(statement).execute(db)
}
