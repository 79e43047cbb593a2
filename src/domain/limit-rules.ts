/**
 * Daily price-limit ratios as the exchanges set them on a given day. Each board's rules are a list of dated
 * changes; the rule in force on `date` is the last one whose `from` is not after it.
 *
 * Sources:
 * - STAR (688/689): SSE 科创板股票交易特别规定, trading from 2019-07-22: ±20%, no limit on the first 5 days.
 * - ChiNext (300/301/302): SZSE 创业板注册制改革, from 2020-08-24: ±20% (ST too), no limit on the first 5 days.
 *   Before: ±10% (ST ±5%), first day +44%/−36%.
 * - BSE (43/83/87/88/920): Beijing Stock Exchange opened 2021-11-15: ±30%, no limit on the first day.
 * - Main boards (SH 60x, SZ 000-003): ±10%. Registration-based listings from 2023-04-10 (SSE/SZSE 主板注册制,
 *   first listings that day): no limit on the first 5 days; before, first day +44%/−36%.
 * - Main-board risk-warning (ST, *ST) stocks: ±5% until SSE/SZSE 《关于调整主板风险警示股票价格涨跌幅限制比例及有关事项的通知》
 *   (consultation 2025-06-27) takes effect; ±10% from 2026-07-06.
 * - B shares (900/200) follow the main-board percentages.
 *
 * A first-day band that is not symmetric (+44%/−36%) and the unlimited first days both return `null`:
 * no limit-up or limit-down price can be derived from pre_close on those days.
 */
import type { Board } from './codes.js'

export interface LimitRule {
  /** First day the rule applies (ISO date). */
  readonly from: string
  readonly ratio: number
  /** Ratio for risk-warning (ST) stocks. */
  readonly stRatio: number
  /** Trading days from listing (day 1 = first day) without a symmetric limit. */
  readonly unlimitedDays: number
  readonly source: string
}

export const LIMIT_RULES: Readonly<Record<Board, readonly LimitRule[]>> = {
  main: [
    { from: '1996-12-16', ratio: 0.1, stRatio: 0.05, unlimitedDays: 1, source: 'SSE/SZSE ±10% (ST ±5% from 1998)' },
    {
      from: '2023-04-10',
      ratio: 0.1,
      stRatio: 0.05,
      unlimitedDays: 5,
      source: 'SSE/SZSE main-board registration: first 5 days without limit',
    },
    {
      from: '2026-07-06',
      ratio: 0.1,
      stRatio: 0.1,
      unlimitedDays: 5,
      source: 'SSE/SZSE notice on main-board risk-warning stocks: ST ±5% -> ±10%',
    },
  ],
  b_share: [
    { from: '1996-12-16', ratio: 0.1, stRatio: 0.05, unlimitedDays: 1, source: 'SSE/SZSE ±10% (ST ±5%)' },
    {
      from: '2026-07-06',
      ratio: 0.1,
      stRatio: 0.1,
      unlimitedDays: 1,
      source: 'SSE/SZSE notice on main-board risk-warning stocks: ST ±5% -> ±10%',
    },
  ],
  star: [{ from: '2019-07-22', ratio: 0.2, stRatio: 0.2, unlimitedDays: 5, source: 'SSE STAR market opening' }],
  chinext: [
    { from: '2009-10-30', ratio: 0.1, stRatio: 0.05, unlimitedDays: 1, source: 'SZSE ChiNext opening' },
    { from: '2020-08-24', ratio: 0.2, stRatio: 0.2, unlimitedDays: 5, source: 'SZSE ChiNext registration reform' },
  ],
  bse: [{ from: '2021-11-15', ratio: 0.3, stRatio: 0.3, unlimitedDays: 1, source: 'Beijing Stock Exchange opening' }],
}

/** The rule of `board` in force on `date` (the earliest one for dates before the board's first rule). */
export function limitRuleOn(board: Board, date: string): LimitRule {
  const rules = LIMIT_RULES[board]
  let rule = rules[0]!
  for (const r of rules) if (r.from <= date) rule = r
  return rule
}

/**
 * The daily limit ratio of a stock on `date`, or null when the day has no symmetric limit (new-listing days).
 * `listedDays` counts trading days since listing, 1 on the first day; pass Infinity when unknown.
 */
export function limitRatio(board: Board, st: boolean, date: string, listedDays: number): number | null {
  const rule = limitRuleOn(board, date)
  if (listedDays <= rule.unlimitedDays) return null
  return st ? rule.stRatio : rule.ratio
}

/**
 * The narrowest ratio the board's rules allow at any day from `from` to `to` (long-listed stocks): a simulated
 * history that honours it fits every date of the span.
 */
export function narrowestLimitRatio(board: Board, st: boolean, from: string, to: string): number {
  const rules = LIMIT_RULES[board]
  const inForce = rules.filter((r, i) => r.from <= to && (rules[i + 1]?.from ?? '9999-12-31') > from)
  return Math.min(...(inForce.length > 0 ? inForce : [limitRuleOn(board, from)]).map((r) => (st ? r.stRatio : r.ratio)))
}
