import { replayFrom, type StoredMemory, type TierDay } from './logic-replay.js'
import type { LogicMemory } from './logic-state.js'
import type { LogicTag, TierRow } from './plan-types.js'

/**
 * Today's logic memory for each tier row, stepped from the code's latest stored memory whatever its date:
 * the tier dates between that memory and today (`between`, ascending) are stepped first, a date without a row
 * of the code (`history`) counting as an absent day, so a gap never resets a state. A code without any stored
 * memory starts today.
 */
export function stepAll(
  date: string,
  rows: readonly TierRow[],
  seeds: ReadonlyMap<string, StoredMemory>,
  between: readonly string[] = [],
  history: ReadonlyMap<string, ReadonlyMap<string, TierDay>> = new Map(),
): Map<string, LogicMemory> {
  const out = new Map<string, LogicMemory>()
  for (const row of rows) {
    const seed = seeds.get(row.code)
    const days = new Map<string, TierDay>(history.get(row.code) ?? [])
    days.set(date, {
      trade_date: date,
      score: row.score,
      tier: row.tier,
      invalidated: row.invalidated,
      is_suspended: row.is_suspended,
      score_pct: row.score_pct,
      invalidation: row.invalidation,
    })
    const dates = seed ? [...between.filter((d) => d > seed.date && d < date), date] : [date]
    const next = replayFrom(seed, dates, days).memory
    if (next) out.set(row.code, next)
  }
  return out
}

export function logicTags(memories: ReadonlyMap<string, LogicMemory>): Map<string, LogicTag> {
  return new Map(
    [...memories].map(([code, m]) => [code, { state: m.state, days: m.days_in_state, rule: m.state_rule }]),
  )
}
