/**
 * Four-state logic state of a code (DESIGN §8 "Logic state", bands as calibrated for PLAN_VERSION 2):
 * forming -> confirmed -> weakening -> broken.
 *
 * The bands are set on percentiles of the day's cross-section: each day a code's score has a percentile
 * (0..100) among all scored codes (`score_pct` of the tier row), and the state machine runs on the EMA (span
 * 5, alpha = 1/3, seeded with the first percentile) of that percentile. So "confirmed" means "among the best
 * fifth of the market for days", whatever the level of scores that day. The EMA of the raw score is kept for
 * display. A day on which the code is absent from the tier table (a suspension, a missing bar) says nothing
 * about its standing: the percentile EMA holds, the score EMA decays by (1 - alpha), and the day counts
 * towards `absent_days` (5 in a row break the logic). Rules are checked in a fixed order and the first match wins, so the state changes at
 * most once a day; `state_rule` keeps the cause in words (`weakening: score percentile EMA 58 below exit 70`).
 *
 * Counting: `days_in_state` is 1 on the day a state is entered and +1 per later step. The day-count rules
 * compare against the count *including the current day*.
 *
 * Pure and replayable: `replayLogicState(days)` equals stepping the same days one by one, and replaying a
 * suffix from the memory reached after the prefix equals replaying the whole history.
 */

import { deepFreeze } from './stats.js'

export type LogicStateName = 'forming' | 'confirmed' | 'weakening' | 'broken'

export interface LogicMemory {
  readonly state: LogicStateName
  /** The day's score, null when the code was absent that day. */
  readonly score: number | null
  /** EMA of the raw score, for display. Kept at full precision (stepping from stored memory = full replay). */
  readonly score_ema: number
  /** The day's score percentile (0..100), null when absent or unknown. */
  readonly score_pct: number | null
  /** EMA of the score percentile: the bands are set on it. Null until a percentile has been seen. */
  readonly pct_ema: number | null
  readonly state_since: string
  readonly days_in_state: number
  /** The rule that produced the current state, with its cause in words. */
  readonly state_rule: string
  /** Consecutive days (including this one) with pct_ema >= enter. */
  readonly above_days: number
  /** Consecutive days (including this one) absent from the tier table; 0 on a present day. */
  readonly absent_days: number
}

export interface LogicDay {
  readonly date: string
  /** null = absent from that day's tier table. */
  readonly score: number | null
  /** Percentile of the score in the day's cross-section (0..100); null when absent or unknown. */
  readonly pct?: number | null
  readonly tier: 'main' | 'observe' | 'reject' | null
  /** A hard invalidation (e.g. from the company review) is triggered that day. */
  readonly invalidated?: boolean
  /** Suspended all day: no evidence either way, the memory is kept as it was. */
  readonly suspended?: boolean
  /** The invalidation in words, e.g. `loss in 2026Q3 (EPS -0.12)`. */
  readonly invalidation?: string | null
}

/** Bands on the score percentile EMA (0..100). */
export const LOGIC_RULES = deepFreeze({
  span: 5,
  enter: 80,
  exit: 70,
  break: 30,
  rearm: 50,
  confirmDays: 2,
  weakeningMaxDays: 15,
  rearmCooldownDays: 5,
  formingFailDays: 5,
  absentBreakDays: 5,
} as const)

const ALPHA = 2 / (LOGIC_RULES.span + 1)

interface Candidate {
  readonly ema: number | null
  readonly aboveDays: number
  readonly absentDays: number
  /** days_in_state if the state is kept today. */
  readonly daysIfKept: number
  readonly invalidated: boolean
  readonly invalidation: string | null
}

type Decision = { readonly to: LogicStateName; readonly rule: string } | { readonly hold: true } | null

const f0 = (v: number): string => v.toFixed(0)

/** The transition for today, in the precedence order of the rules; null when no rule fires. */
function decide(state: LogicStateName, c: Candidate): Decision {
  const R = LOGIC_RULES
  if (c.invalidated || c.absentDays >= R.absentBreakDays) {
    // Already broken: stay broken (no new change, the cooldown keeps counting) and let no later rule fire.
    if (state === 'broken') return { hold: true }
    const cause = c.invalidated
      ? (c.invalidation ?? 'hard invalidation triggered')
      : `absent from the tier table ${c.absentDays} days`
    return { to: 'broken', rule: `broken: ${cause}` }
  }
  if (c.ema === null) return null
  const ema = f0(c.ema)
  const confirms = c.aboveDays >= R.confirmDays
  switch (state) {
    case 'forming':
      if (confirms)
        return { to: 'confirmed', rule: `confirmed: score percentile EMA ${ema} >= ${R.enter} for ${c.aboveDays} days` }
      if (c.ema < R.break && c.daysIfKept >= R.formingFailDays)
        return {
          to: 'broken',
          rule: `broken: score percentile EMA ${ema} below ${R.break} after ${c.daysIfKept} days forming`,
        }
      return null
    case 'confirmed':
      if (c.ema < R.exit)
        return { to: 'weakening', rule: `weakening: score percentile EMA ${ema} below exit ${R.exit}` }
      return null
    case 'weakening':
      if (confirms)
        return { to: 'confirmed', rule: `confirmed: score percentile EMA back >= ${R.enter} for ${c.aboveDays} days` }
      if (c.ema < R.break) return { to: 'broken', rule: `broken: score percentile EMA ${ema} below ${R.break}` }
      if (c.daysIfKept >= R.weakeningMaxDays)
        return { to: 'broken', rule: `broken: ${c.daysIfKept} days weakening without getting back to ${R.enter}` }
      return null
    case 'broken':
      if (c.daysIfKept >= R.rearmCooldownDays && c.ema >= R.rearm)
        return {
          to: 'forming',
          rule: `forming: re-armed, score percentile EMA ${ema} >= ${R.rearm} after ${c.daysIfKept} days broken`,
        }
      return null
  }
}

/**
 * Advances the memory by one trading day. Returns undefined only when there is no memory yet and the code is
 * absent (nothing to track).
 */
export function stepLogicState(prev: LogicMemory | undefined, day: LogicDay): LogicMemory | undefined {
  const R = LOGIC_RULES
  const pct = day.score === null ? null : (day.pct ?? null)
  if (prev === undefined) {
    if (day.score === null) return undefined
    const invalidated = day.invalidated === true
    return {
      state: invalidated ? 'broken' : 'forming',
      score: day.score,
      score_ema: day.score,
      score_pct: pct,
      pct_ema: pct,
      state_since: day.date,
      days_in_state: 1,
      state_rule: invalidated
        ? `broken: ${day.invalidation ?? 'hard invalidation triggered'}`
        : 'forming: first day tracked',
      above_days: pct !== null && pct >= R.enter ? 1 : 0,
      absent_days: 0,
    }
  }
  if (day.suspended === true) return prev
  const present = day.score !== null
  const ema = present ? ALPHA * day.score! + (1 - ALPHA) * prev.score_ema : (1 - ALPHA) * prev.score_ema
  let pctEma: number | null
  if (!present || pct === null) pctEma = prev.pct_ema
  else pctEma = prev.pct_ema === null ? pct : ALPHA * pct + (1 - ALPHA) * prev.pct_ema
  const candidate: Candidate = {
    ema: pctEma,
    aboveDays: pctEma !== null && pctEma >= R.enter ? prev.above_days + 1 : 0,
    absentDays: present ? 0 : prev.absent_days + 1,
    daysIfKept: prev.days_in_state + 1,
    invalidated: day.invalidated === true,
    invalidation: day.invalidation ?? null,
  }
  const decision = decide(prev.state, candidate)
  const changed = decision !== null && 'to' in decision
  return {
    state: changed ? decision.to : prev.state,
    score: day.score,
    score_ema: ema,
    score_pct: pct,
    pct_ema: pctEma,
    state_since: changed ? day.date : prev.state_since,
    days_in_state: changed ? 1 : candidate.daysIfKept,
    state_rule: changed ? decision.rule : prev.state_rule,
    above_days: candidate.aboveDays,
    absent_days: candidate.absentDays,
  }
}

/** Folds `stepLogicState` over `days` (oldest first), starting from `seed` (the memory before the first day). */
export function replayLogicState(days: readonly LogicDay[], seed?: LogicMemory): LogicMemory | undefined {
  let memory = seed
  for (const day of days) memory = stepLogicState(memory, day)
  return memory
}
