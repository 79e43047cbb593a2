import { boardOf } from './codes.js'
import type { ScreenReason, TierRow } from './plan-types.js'

export const SCREEN_RULES = Object.freeze({ minListedDays: 60, minAmountMa20: 50_000_000 })

/** The first screening rule a row fails, in the design's order (held first: held codes never reach the plan). */
export function screenReason(
  row: Pick<TierRow, 'code' | 'is_suspended' | 'is_st' | 'listed_days' | 'amount_ma20'>,
  held: ReadonlySet<string>,
): ScreenReason | undefined {
  if (held.has(row.code)) return 'held'
  // B shares (900 SH, 200 SZ) trade in USD/HKD: the yuan liquidity threshold and the plan do not fit them
  if (boardOf(row.code) === 'b_share') return 'b_share'
  if (row.is_suspended) return 'suspended'
  if (row.is_st) return 'st'
  if (row.listed_days < SCREEN_RULES.minListedDays) return 'new_listing'
  if (row.amount_ma20 < SCREEN_RULES.minAmountMa20) return 'illiquid'
  return undefined
}
