/**
 * Four-state logic state of a code (DESIGN §8 "Logic state"): forming -> confirmed -> weakening -> broken.
 *
 * One step is one trading day. The daily score is smoothed with an EMA (span 5, alpha = 2/(span+1) = 1/3,
 * seeded with the first score); a day on which the code is absent from the tier table decays the EMA by
 * (1 - alpha) and counts towards `absent_days`. Rules are checked in a fixed order and the first match wins, so
 * the state changes at most once a day; the id of the rule that produced the current state is kept.
 *
 * Counting: `days_in_state` is 1 on the day a state is entered and +1 per later step. The day-count rules
 * (`fail`, `break` by duration, `rearm`) compare against the count *including the current day*, i.e. the value
 * `days_in_state` would take if the state were kept: forming entered on day 1 can `fail` on day 5.
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
  /** Kept at full precision: rounding it would make stepping from stored memory drift from a full replay. */
  readonly score_ema: number
  readonly state_since: string
  readonly days_in_state: number
  readonly state_rule: string
  /** Consecutive days (including this one) with score_ema >= enter. */
  readonly above_days: number
  /** Consecutive days (including this one) absent from the tier table; 0 on a present day. */
  readonly absent_days: number
}

export interface LogicDay {
  readonly date: string
  /** null = absent from that day's tier table. */
  readonly score: number | null
  readonly tier: 'main' | 'observe' | 'reject' | null
  /** A hard invalidation (e.g. from the company review) is triggered that day. */
  readonly invalidated?: boolean
  /** Suspended all day: no evidence either way, the memory is kept as it was. */
  readonly suspended?: boolean
}

export const LOGIC_RULES = deepFreeze({
  span: 5,
  enter: 70,
  exit: 60,
  break: 40,
  rearm: 55,
  confirmDays: 2,
  weakeningMaxDays: 10,
  rearmCooldownDays: 5,
  formingFailDays: 5,
  absentBreakDays: 5,
} as const)

export type LogicRuleId = 'new' | 'invalidated' | 'enter' | 'fail' | 'exit' | 'reenter' | 'break' | 'rearm'

const ALPHA = 2 / (LOGIC_RULES.span + 1)

interface Candidate {
  readonly ema: number
  readonly aboveDays: number
  readonly absentDays: number
  /** days_in_state if the state is kept today. */
  readonly daysIfKept: number
  readonly tier: LogicDay['tier']
  readonly invalidated: boolean
}

type Decision = { readonly to: LogicStateName; readonly rule: LogicRuleId } | { readonly hold: true } | null

/** The transition for today, in the precedence order of the rules; null when no rule fires. */
function decide(state: LogicStateName, c: Candidate): Decision {
  const R = LOGIC_RULES
  if (c.invalidated || c.absentDays >= R.absentBreakDays) {
    // Already broken: stay broken (no new change, the cooldown keeps counting) and let no later rule fire.
    return state === 'broken' ? { hold: true } : { to: 'broken', rule: 'invalidated' }
  }
  const confirms = c.aboveDays >= R.confirmDays && c.tier !== 'reject'
  switch (state) {
    case 'forming':
      if (confirms) return { to: 'confirmed', rule: 'enter' }
      if (c.ema < R.break && c.daysIfKept >= R.formingFailDays) return { to: 'broken', rule: 'fail' }
      return null
    case 'confirmed':
      if (c.ema < R.exit || c.tier === 'reject') return { to: 'weakening', rule: 'exit' }
      return null
    case 'weakening':
      if (confirms) return { to: 'confirmed', rule: 'reenter' }
      if (c.ema < R.break || c.daysIfKept >= R.weakeningMaxDays) return { to: 'broken', rule: 'break' }
      return null
    case 'broken':
      if (c.daysIfKept >= R.rearmCooldownDays && c.ema >= R.rearm) return { to: 'forming', rule: 'rearm' }
      return null
  }
}

/**
 * Advances the memory by one trading day. Returns undefined only when there is no memory yet and the code is
 * absent (nothing to track).
 */
export function stepLogicState(prev: LogicMemory | undefined, day: LogicDay): LogicMemory | undefined {
  const R = LOGIC_RULES
  if (prev === undefined) {
    if (day.score === null) return undefined
    return {
      state: 'forming',
      score: day.score,
      score_ema: day.score,
      state_since: day.date,
      days_in_state: 1,
      state_rule: 'new',
      above_days: day.score >= R.enter ? 1 : 0,
      absent_days: 0,
    }
  }
  if (day.suspended === true) return prev
  const present = day.score !== null
  const ema = present ? ALPHA * day.score + (1 - ALPHA) * prev.score_ema : (1 - ALPHA) * prev.score_ema
  const candidate: Candidate = {
    ema,
    aboveDays: ema >= R.enter ? prev.above_days + 1 : 0,
    absentDays: present ? 0 : prev.absent_days + 1,
    daysIfKept: prev.days_in_state + 1,
    tier: day.tier,
    invalidated: day.invalidated === true,
  }
  const decision = decide(prev.state, candidate)
  const changed = decision !== null && 'to' in decision
  return {
    state: changed ? decision.to : prev.state,
    score: day.score,
    score_ema: ema,
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
