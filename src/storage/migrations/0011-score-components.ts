import { type Kysely, sql } from 'kysely'

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and typed against no schema (kysely's advice)
type AnyDb = Kysely<any>

// Calibrated plans (PLAN_VERSION 2): each tier row keeps the points of its score's components (they sum to
// `score`), its percentile in the day's cross-section, why its tier is what it is, its tradability flags,
// the valuation method behind `upside` and, when a hard invalidation fired, the cause in words. The daily
// rows keep the percentile EMA the logic state bands are set on.
const STATEMENTS = [
  `alter table tier_scores
    add column pts_momentum double precision not null default 0,
    add column pts_trend double precision not null default 0,
    add column pts_heat double precision not null default 0,
    add column pts_upside double precision not null default 0,
    add column pts_liquidity double precision not null default 0,
    add column pts_quality double precision not null default 0,
    add column score_pct double precision,
    add column tier_rule text not null default '',
    add column flags jsonb not null default '[]',
    add column valuation_method text,
    add column invalidation text`,
  `alter table stock_daily
    add column score_pct double precision,
    add column pct_ema double precision`,
]

export async function up(db: AnyDb): Promise<void> {
  for (const statement of STATEMENTS) await sql.raw(statement).execute(db)
}

export async function down(db: AnyDb): Promise<void> {
  await sql.raw('alter table stock_daily drop column score_pct, drop column pct_ema').execute(db)
  await sql
    .raw(
      `alter table tier_scores drop column pts_momentum, drop column pts_trend, drop column pts_heat,
        drop column pts_upside, drop column pts_liquidity, drop column pts_quality, drop column score_pct,
        drop column tier_rule, drop column flags, drop column valuation_method, drop column invalidation`,
    )
    .execute(db)
}
