import type { ColumnType, Insertable, Selectable } from 'kysely'
import type { UntradableReason } from '../domain/outcomes.js'
import type { DayStats } from '../domain/track-record-day.js'

/** ISO date string `YYYY-MM-DD` (the DATE type parser returns strings). */
export type IsoDate = string
type Json<T> = ColumnType<T, string, string>
/** A column with a database default: optional on insert. */
type Defaulted<T> = ColumnType<T, T | undefined, T>

export interface SecuritiesTable {
  code: string
  name: string
  exchange: string
  board: string
  industry: string | null
  list_date: IsoDate | null
  delist_date: IsoDate | null
  /** tushare stock_basic list_status: L listed, D delisted, P paused; NULL when the source does not say. */
  list_status: Defaulted<'L' | 'D' | 'P' | null>
}

export interface BarColumns {
  code: string
  trade_date: IsoDate
  open: number
  high: number
  low: number
  close: number
  pre_close: number | null
  volume: number
  amount: number
  turnover_rate: number | null
  adj_factor: number
  is_suspended: boolean
  is_st: boolean
  /** tushare stk_limit prices of the day, when imported. */
  up_limit: Defaulted<number | null>
  down_limit: Defaulted<number | null>
}

export interface DailyBasicsTable {
  code: string
  trade_date: IsoDate
  pe_ttm: number | null
  pb: number | null
  total_mv: number | null
  circ_mv: number | null
}

export interface FinancialsTable {
  code: string
  end_date: IsoDate
  ann_date: IsoDate
  eps: number | null
  bvps: number | null
  roe: number | null
  gross_margin: number | null
  ocf_to_np: number | null
  debt_to_assets: number | null
  revenue_yoy: number | null
  np_yoy: number | null
}

export interface EpsForecastsTable {
  code: string
  as_of: IsoDate
  fiscal_year: number
  eps_mean: number | null
  eps_low: number | null
  eps_high: number | null
}

export interface ThemeEdgesTable {
  theme: string
  segment: string
  code: string
  weight: number
  evidence: string
  track: string
  /** First and last day (inclusive) the edge holds; '-infinity' / NULL: always. */
  valid_from: Defaulted<IsoDate>
  valid_to: Defaulted<IsoDate | null>
}

export interface ThemeEventsTable {
  trade_date: IsoDate
  theme: string
  intensity: number
  title: string
}

export interface HoldingsTable {
  code: string
  qty: number
  cost_price: number | null
  updated_at: IsoDate
  /** The position holds from this date until a later as_of row of the code; '-infinity': always. */
  as_of: Defaulted<IsoDate>
}

export interface TradingCalendarTable {
  cal_date: IsoDate
  is_open: boolean
}

export interface StPeriodsTable {
  code: string
  start_date: IsoDate
  /** Last ST day (inclusive); NULL while still ST. */
  end_date: IsoDate | null
  name: Defaulted<string>
}

export interface GraphEvidence {
  theme: string
  segment: string
  weight: number
  evidence: string
  track: string
}

export interface TierScoresTable {
  trade_date: IsoDate
  code: string
  score: number
  rank: number
  tier: 'main' | 'observe' | 'reject'
  theme: string | null
  segment: string | null
  upside: number | null
  heat: number | null
  transmission: number | null
  track: string | null
  graph_evidence: Json<GraphEvidence[]>
  build_id: string
  /** Screening facts captured at build time so plan assembly is one query. */
  name: Defaulted<string>
  close: Defaulted<number | null>
  is_suspended: Defaulted<boolean>
  is_st: Defaulted<boolean>
  listed_days: Defaulted<number>
  amount_ma20: Defaulted<number>
  invalidated: Defaulted<boolean>
  /** Points of each score component (migration 0011); they sum to `score`. */
  pts_momentum: Defaulted<number>
  pts_trend: Defaulted<number>
  pts_heat: Defaulted<number>
  pts_upside: Defaulted<number>
  pts_liquidity: Defaulted<number>
  pts_quality: Defaulted<number>
  /** Percentile (0..100) of the score in the day's cross-section. */
  score_pct: Defaulted<number | null>
  /** Why the row has its tier, in words. */
  tier_rule: Defaulted<string>
  flags: ColumnType<string[], string | undefined, string>
  valuation_method: Defaulted<string | null>
  /** The hard invalidation that fired, in words (e.g. `loss in 2026Q3`), else null. */
  invalidation: Defaulted<string | null>
  /** PLAN_VERSION 3 (migration 0013): rank-normalised signals in [-1, 1]; a missing signal has no key. */
  signals: ColumnType<Record<string, number>, string | undefined, string>
  /** PLAN_VERSION 3: points per signal, adding up to `score` ({} for older rows, which use pts_*). */
  points: ColumnType<Record<string, number>, string | undefined, string>
}

export interface BuildsTable {
  build_id: string
  trade_date: IsoDate
  started_at: ColumnType<Date, Date | string, Date | string>
  finished_at: ColumnType<Date, Date | string, Date | string>
  code_version: string
  stale: string
  counts: Json<Record<string, number>>
  /** The walk-forward weights the build used (migration 0013; null for older builds). */
  weights: ColumnType<Record<string, SignalWeightJson> | null, string | null | undefined, string | null>
  /** Why `main` had to stay empty that day, in words; null when it did not. */
  main_empty: Defaulted<string | null>
  /** The fingerprint of the signal definitions the build scored with (migration 0017; null for older builds). */
  signal_definitions: Defaulted<string | null>
}

export interface SignalWeightJson {
  weight: number
  prior: number
  icMean: number | null
  days: number
}

export interface SignalIcTable {
  trade_date: IsoDate
  horizon: number
  signal: string
  exit_date: IsoDate
  ic: number
  n: number
  /** The signal definitions of the build whose tier rows the IC was measured on ('' before migration 0017). */
  definitions: Defaulted<string>
}

/** A plan day's track-record statistics at one horizon (`DayStats` as JSON), the hits counted against `benchmark`. */
export interface PlanDayStatsTable {
  horizon: number
  trade_date: IsoDate
  entry_date: IsoDate
  benchmark: string
  stats: Json<DayStats>
  computed_at: Defaulted<Date>
}

/** The distinct dates of stock_daily (the published plan dates), kept by triggers (migration 0016). */
export interface PlanDatesTable {
  trade_date: IsoDate
}

/** The distinct (horizon, date) pairs of plan_outcomes, kept by triggers (migration 0016). */
export interface OutcomeDatesTable {
  horizon: number
  trade_date: IsoDate
}

/** A tushare concept board (ths_index); its members are theme_edges rows with the board's name as theme. */
export interface ConceptBoardsTable {
  code: string
  name: string
  type: Defaulted<string>
}

/** A concept board index's daily bar (ths_daily, units as tushare gives them). */
export interface ConceptBarsTable {
  code: string
  trade_date: IsoDate
  open: number | null
  high: number | null
  low: number | null
  close: number
  pre_close: number | null
  pct_change: number | null
  volume: number | null
  amount: number | null
}

export interface StockDailyTable {
  code: string
  trade_date: IsoDate
  verdict: 'main' | 'observe' | 'reject' | 'absent'
  card_rank: number | null
  plan_version: string
  logic_state: 'forming' | 'confirmed' | 'weakening' | 'broken'
  score: number | null
  score_ema: number
  state_since: IsoDate
  state_rule: string
  days_in_state: number
  above_days: number
  absent_days: number
  code_version: string
  score_pct: Defaulted<number | null>
  /** EMA of the score percentile: what the logic state bands are set on. */
  pct_ema: Defaulted<number | null>
}

export type ChainRunStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'killed' | 'timeout'

/** One scheduler trigger (XXL-JOB logId); the owner beats `heartbeat_at` while the run is queued or running. */
export interface ChainRunsTable {
  log_id: number
  job_id: number
  handler: string
  params: string
  block_strategy: string
  timeout_s: number
  log_date_time: number
  status: ChainRunStatus
  step: string | null
  handle_code: number | null
  handle_msg: string | null
  owner_id: string
  owner_address: string | null
  heartbeat_at: ColumnType<Date, Date | string | undefined, Date | string>
  created_at: ColumnType<Date, Date | string | undefined, Date | string>
  started_at: ColumnType<Date | null, Date | string | null, Date | string | null>
  finished_at: ColumnType<Date | null, Date | string | null, Date | string | null>
}

/** A run's log, line_no from 1; shown as `YYYY-MM-DD HH:mm:ss [step] text`. */
export interface ChainRunLinesTable {
  log_id: number
  line_no: number
  logged_at: ColumnType<Date, Date | string | undefined, Date | string>
  step: string
  text: string
}

/** The callback that closes a run at the admin; written in the transaction that finishes the run. */
export interface CallbackOutboxTable {
  log_id: number
  log_date_time: number
  handle_code: number
  handle_msg: string
  attempts: ColumnType<number, number | undefined, number>
  next_attempt_at: ColumnType<Date, Date | string | undefined, Date | string>
  last_attempt_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
  last_error: string | null
  delivered_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
  created_at: ColumnType<Date, Date | string | undefined, Date | string>
}

/** One published code's forward return for plan date T and horizon h: entry open T+1, exit close T+h. */
export interface PlanOutcomesTable {
  trade_date: IsoDate
  horizon: number
  code: string
  entry_date: IsoDate
  exit_date: IsoDate
  tradable: boolean
  reason: UntradableReason | null
  ret: number | null
  benchmark: string
  bench_ret: number | null
  universe_ret: number | null
  excess: number | null
  regime: string | null
  computed_at: ColumnType<Date, Date | string | undefined, Date | string>
}

/** How far a `stockplan replay --from --to` got; a rerun resumes after `done_through`. */
export interface ReplayRunsTable {
  from_date: IsoDate
  to_date: IsoDate
  done_through: IsoDate | null
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>
}

export interface Database {
  securities: SecuritiesTable
  daily_bars: BarColumns
  index_bars: BarColumns
  daily_basics: DailyBasicsTable
  financials: FinancialsTable
  eps_forecasts: EpsForecastsTable
  theme_edges: ThemeEdgesTable
  theme_events: ThemeEventsTable
  holdings: HoldingsTable
  trading_calendar: TradingCalendarTable
  st_periods: StPeriodsTable
  tier_scores: TierScoresTable
  builds: BuildsTable
  stock_daily: StockDailyTable
  chain_runs: ChainRunsTable
  chain_run_lines: ChainRunLinesTable
  callback_outbox: CallbackOutboxTable
  plan_outcomes: PlanOutcomesTable
  replay_runs: ReplayRunsTable
  signal_ic: SignalIcTable
  plan_day_stats: PlanDayStatsTable
  plan_dates: PlanDatesTable
  outcome_dates: OutcomeDatesTable
  concept_boards: ConceptBoardsTable
  concept_bars: ConceptBarsTable
}

export type TierScoreRow = Selectable<TierScoresTable>
export type NewTierScoreRow = Insertable<TierScoresTable>
export type StockDailyRow = Selectable<StockDailyTable>
export type NewStockDailyRow = Insertable<StockDailyTable>
export type SecurityRow = Selectable<SecuritiesTable>
export type BarRow = Selectable<BarColumns>
export type BuildRow = Selectable<BuildsTable>
