import { type LogicMemory, stepLogicState } from './logic-state.js'
import type { LogicTag, TierRow } from './plan-types.js'

/** Today's logic memory for each tier row, stepped from the previous plan day's stored memory. */
export function stepAll(
  date: string,
  rows: readonly TierRow[],
  previous: ReadonlyMap<string, LogicMemory>,
): Map<string, LogicMemory> {
  const out = new Map<string, LogicMemory>()
  for (const row of rows) {
    const next = stepLogicState(previous.get(row.code), {
      date,
      score: row.score,
      tier: row.tier,
      invalidated: row.invalidated,
      suspended: row.is_suspended,
    })
    if (next) out.set(row.code, next)
  }
  return out
}

export function logicTags(memories: ReadonlyMap<string, LogicMemory>): Map<string, LogicTag> {
  return new Map([...memories].map(([code, m]) => [code, { state: m.state, days: m.days_in_state }]))
}
