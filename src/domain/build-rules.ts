/** Look-backs and thresholds of the nightly build; a change here is a new PLAN_VERSION. */
export const BUILD_RULES = Object.freeze({
  heatEmaSpan: 5,
  heatEventShare: 0.7, // of theme heat; the rest is member breadth that day
  heatLookbackDays: 30,
  segmentBase: 0.7, // share of an edge's weight carried whatever the segment did; the rest scales with its breadth
  amountDays: 20,
  staleEventDays: 5,
  pointDigits: 2,
})

/**
 * Tiers (PLAN_VERSION 3). The score is a percentile among the day's *eligible* rows (those that pass the
 * build-time screen: not suspended, not ST, listed >= 60 trading days, liquid, no hard invalidation), so the cuts
 * are percentiles and no market, whatever inputs it has, misses a floor.
 * - `main` has `mainSlots` places. Yesterday's published `main` names keep theirs while they stay eligible and
 *   score at least `stayPct` (hysteresis: a name leaves when it falls out of the wider band, not when it slips a
 *   rank), best score first; the free places go to eligible rows scoring at least `entryPct`, best first, except
 *   a row that closed at the limit up or traded as a one-word board on T (not buyable at the next open).
 * - `observe`: every other row scoring at least `observePct`.
 * - On a weak-regime day `main` has `weakMainSlots` places; the rows that lost theirs become `observe` and the
 *   plan counts them (`card_counts.weak_regime_demoted`).
 * - `main` is empty only when no signal carries weight or no row is eligible; the build says which.
 */
export const TIER_RULES = Object.freeze({
  mainSlots: 20,
  weakMainSlots: 10,
  entryPct: 95,
  stayPct: 80,
  observePct: 85,
})

export type Tier = 'main' | 'observe' | 'reject'
