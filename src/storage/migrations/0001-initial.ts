import { type Kysely, sql } from 'kysely'

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and typed against no schema (kysely's advice)
type AnyDb = Kysely<any>

// Frozen in time: never edit a migration that has shipped; add a new one.
const BAR_COLUMNS = `
  code text not null,
  trade_date date not null,
  open double precision not null,
  high double precision not null,
  low double precision not null,
  close double precision not null,
  pre_close double precision,
  volume double precision not null,
  amount double precision not null,
  turnover_rate double precision,
  adj_factor double precision not null default 1,
  is_suspended boolean not null default false,
  is_st boolean not null default false,
  primary key (code, trade_date)`

const STATEMENTS = [
  `create table securities (
    code text primary key, name text not null, exchange text not null check (exchange in ('SH','SZ','BJ')),
    board text not null, industry text, list_date date, delist_date date)`,
  `create table daily_bars (${BAR_COLUMNS})`,
  'create index daily_bars_date on daily_bars (trade_date)',
  `create table index_bars (${BAR_COLUMNS})`,
  `create table daily_basics (code text not null, trade_date date not null, pe_ttm double precision,
    pb double precision, total_mv double precision, circ_mv double precision, primary key (code, trade_date))`,
  `create table financials (code text not null, end_date date not null, ann_date date not null,
    eps double precision, bvps double precision, roe double precision, gross_margin double precision,
    ocf_to_np double precision, debt_to_assets double precision, revenue_yoy double precision,
    np_yoy double precision, primary key (code, end_date))`,
  `create table eps_forecasts (code text not null, as_of date not null, fiscal_year integer not null,
    eps_mean double precision, eps_low double precision, eps_high double precision,
    primary key (code, as_of, fiscal_year))`,
  `create table theme_edges (theme text not null, segment text not null, code text not null,
    weight double precision not null check (weight >= 0 and weight <= 1), evidence text not null default '',
    track text not null default '', primary key (theme, segment, code))`,
  'create index theme_edges_code on theme_edges (code)',
  `create table theme_events (trade_date date not null, theme text not null,
    intensity double precision not null check (intensity >= 0 and intensity <= 100), title text not null,
    primary key (trade_date, theme, title))`,
  `create table holdings (code text primary key, qty double precision not null, cost_price double precision,
    updated_at date not null)`,
  `create table builds (build_id text primary key, trade_date date not null, started_at timestamptz not null,
    finished_at timestamptz not null, code_version text not null, stale text not null default '',
    counts jsonb not null default '{}')`,
  'create index builds_date on builds (trade_date, finished_at desc)',
  `create table tier_scores (trade_date date not null, code text not null, score double precision not null,
    rank integer not null, tier text not null check (tier in ('main','observe','reject')), theme text,
    segment text, upside double precision, heat double precision, transmission double precision, track text,
    graph_evidence jsonb not null default '[]', build_id text not null,
    name text not null default '', close double precision, is_suspended boolean not null default false,
    is_st boolean not null default false, listed_days integer not null default 0,
    amount_ma20 double precision not null default 0, invalidated boolean not null default false,
    primary key (trade_date, code))`,
  // Plan caches in every process learn of a new data date at once, whoever wrote it.
  `create function notify_tier_dates() returns trigger language plpgsql as $$
    begin perform pg_notify('stockplan_tier_dates', ''); return null; end $$`,
  `create trigger tier_scores_changed after insert or update or delete or truncate on tier_scores
    for each statement execute function notify_tier_dates()`,
  'create index tier_scores_code on tier_scores (code, trade_date)',
  `create table stock_daily (code text not null, trade_date date not null,
    verdict text not null check (verdict in ('main','observe','reject','absent')), card_rank integer,
    plan_version text not null,
    logic_state text not null check (logic_state in ('forming','confirmed','weakening','broken')),
    score double precision, score_ema double precision not null, state_since date not null,
    state_rule text not null, days_in_state integer not null default 1, above_days integer not null default 0, absent_days integer not null default 0,
    code_version text not null, primary key (code, trade_date))`,
  'create index stock_daily_date on stock_daily (trade_date)',
  // Scheduler runs (one XXL-JOB trigger = one logId). owner_id/heartbeat_at tell a live replica's runs from a
  // dead process's: a run whose owner stopped beating is closed as failed by whichever executor sees it.
  `create table chain_runs (log_id bigint primary key, job_id integer not null, handler text not null,
    params text not null default '', block_strategy text not null, timeout_s integer not null default 0,
    log_date_time bigint not null default 0,
    status text not null check (status in ('queued','running','succeeded','failed','killed','timeout')),
    step text, handle_code integer, handle_msg text, owner_id text not null, owner_address text,
    heartbeat_at timestamptz not null default now(), created_at timestamptz not null default now(),
    started_at timestamptz, finished_at timestamptz)`,
  `create index chain_runs_live on chain_runs (heartbeat_at) where status in ('queued','running')`,
  `create table chain_run_lines (log_id bigint not null references chain_runs (log_id) on delete cascade,
    line_no integer not null check (line_no >= 1), logged_at timestamptz not null default now(),
    step text not null, text text not null, primary key (log_id, line_no))`,
  `create table callback_outbox (log_id bigint primary key references chain_runs (log_id) on delete cascade,
    log_date_time bigint not null, handle_code integer not null, handle_msg text not null,
    attempts integer not null default 0, next_attempt_at timestamptz not null default now(),
    last_attempt_at timestamptz, last_error text, delivered_at timestamptz,
    created_at timestamptz not null default now())`,
  'create index callback_outbox_pending on callback_outbox (next_attempt_at) where delivered_at is null',
]

export async function up(db: AnyDb): Promise<void> {
  for (const statement of STATEMENTS) await sql.raw(statement).execute(db)
}

export async function down(db: AnyDb): Promise<void> {
  const tables = [
    'callback_outbox',
    'chain_run_lines',
    'chain_runs',
    'stock_daily',
    'tier_scores',
    'builds',
    'holdings',
    'theme_events',
    'theme_edges',
    'eps_forecasts',
    'financials',
    'daily_basics',
    'index_bars',
    'daily_bars',
    'securities',
  ]
  for (const table of tables) await sql.raw(`drop table if exists ${table}`).execute(db)
  await sql.raw('drop function if exists notify_tier_dates()').execute(db)
}
