import { type Kysely, sql } from 'kysely'

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and typed against no schema (kysely's advice)
type AnyDb = Kysely<any>

// Signal-based plans (PLAN_VERSION 3): each tier row keeps its rank-normalised signals and the points each
// contributed (`points`, one key per signal it had; the pts_* columns stay for PLAN_VERSION 2 rows); each build
// keeps the walk-forward weights it used and, when `main` had to stay empty, why; `signal_ic` holds each plan
// day's rank IC per signal and horizon once its outcomes exist, which later builds learn their weights from.
const STATEMENTS = [
  `alter table tier_scores
    add column signals jsonb not null default '{}',
    add column points jsonb not null default '{}'`,
  `alter table builds
    add column weights jsonb,
    add column main_empty text`,
  `create table signal_ic (
    trade_date date not null,
    horizon integer not null,
    signal text not null,
    exit_date date not null,
    ic double precision not null,
    n integer not null,
    primary key (trade_date, horizon, signal)
  )`,
  'create index signal_ic_exit on signal_ic (horizon, exit_date)',
]

export async function up(db: AnyDb): Promise<void> {
  for (const statement of STATEMENTS) await sql.raw(statement).execute(db)
}

export async function down(db: AnyDb): Promise<void> {
  await sql.raw('drop table signal_ic').execute(db)
  await sql.raw('alter table builds drop column weights, drop column main_empty').execute(db)
  await sql.raw('alter table tier_scores drop column signals, drop column points').execute(db)
}
