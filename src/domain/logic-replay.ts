/**
 * The logic state of one code on a date for which the plan job stored no row (`source: computed`): the same
 * state machine as the plan job, stepped from the code's newest stored memory over every tier date after it,
 * a tier date without a row of the code being an absent day. With no stored memory the code's whole tier
 * history is replayed from scratch.
 */
import { type LogicDay, type LogicMemory, replayLogicState } from './logic-state.js'
import { roundTo } from './stats.js'

export interface TierDay {
  readonly trade_date: string
  readonly score: number
  readonly tier: 'main' | 'observe' | 'reject'
  readonly invalidated: boolean
  readonly is_suspended?: boolean
  readonly score_pct?: number | null
  readonly invalidation?: string | null
}

export interface StoredMemory {
  readonly date: string
  readonly memory: LogicMemory
}

export interface Replayed {
  readonly memory: LogicMemory | undefined
  /** Tier dates stepped after the seed. */
  readonly steps: number
}

/**
 * `seed` stepped over the tier `dates` (ascending, all up to the wanted date) after the seed's date, with the
 * code's `rows` by date; the plan job steps a day exactly so (see `stepAll`).
 */
export function replayFrom(
  seed: StoredMemory | undefined,
  dates: readonly string[],
  rows: ReadonlyMap<string, TierDay>,
): Replayed {
  const days: LogicDay[] = []
  for (const date of dates) {
    if (seed !== undefined && date <= seed.date) continue
    const row = rows.get(date)
    days.push(
      row
        ? {
            date,
            score: row.score,
            pct: row.score_pct ?? null,
            tier: row.tier,
            invalidated: row.invalidated,
            invalidation: row.invalidation ?? null,
            suspended: row.is_suspended,
          }
        : { date, score: null, tier: null },
    )
  }
  return { memory: replayLogicState(days, seed?.memory), steps: days.length }
}

export interface LogicStateFields {
  readonly logic_state: LogicMemory['state'] | null
  readonly score: number | null
  readonly score_ema: number | null
  /** The day's score percentile in the cross-section and its EMA (what the state bands are set on). */
  readonly score_pct: number | null
  readonly pct_ema: number | null
  readonly state_since: string | null
  readonly days_in_state: number | null
  readonly state_rule: string | null
}

export const NO_STATE: LogicStateFields = Object.freeze({
  logic_state: null,
  score: null,
  score_ema: null,
  score_pct: null,
  pct_ema: null,
  state_since: null,
  days_in_state: null,
  state_rule: null,
})

/** The entry's state fields; the EMA is kept at full precision in storage and shown to 2 decimals. */
export function stateFields(memory: LogicMemory | undefined): LogicStateFields {
  if (memory === undefined) return NO_STATE
  return {
    logic_state: memory.state,
    score: memory.score,
    score_ema: roundTo(memory.score_ema, 2),
    score_pct: memory.score_pct,
    pct_ema: memory.pct_ema === null ? null : roundTo(memory.pct_ema, 2),
    state_since: memory.state_since,
    days_in_state: memory.days_in_state,
    state_rule: memory.state_rule,
  }
}

/** Why a computed entry says what it says. */
export function computedNote(code: string, date: string, seed: StoredMemory | undefined, replayed: Replayed): string {
  if (replayed.memory === undefined) {
    return `no tier scores and no stored state for ${code} up to ${date}: no logic state`
  }
  const days = `${replayed.steps} tier date${replayed.steps === 1 ? '' : 's'}`
  return seed
    ? `no stored row for ${date}: stepped from the stored state of ${seed.date} over ${days}`
    : `no stored state: replayed over ${days} of tier history`
}
