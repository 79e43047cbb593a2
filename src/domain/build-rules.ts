/** Weights and thresholds of the nightly build; a change here is a new PLAN_VERSION. */
export const BUILD_RULES = Object.freeze({
  /** Points (of 100) each component can reach; momentum + trend are DESIGN's 0.25 momentum/trend term. */
  points: Object.freeze({ heat: 35, momentum: 15, trend: 10, upside: 20, liquidity: 10, quality: 10 }),
  heatEmaSpan: 5,
  heatEventShare: 0.7, // of theme heat; the rest is member breadth that day
  heatLookbackDays: 30,
  segmentBase: 0.7, // share of an edge's weight carried whatever the segment did; the rest scales with its breadth
  returnDays: 20,
  maShort: 20,
  maLong: 60,
  amountDays: 20,
  missingUpsidePct: 0.25,
  missingQuality: 0.5,
  staleEventDays: 5,
  pointDigits: 2,
})

/**
 * Tiers from the day's cross-section (PLAN_VERSION 2). Among the day's *eligible* rows (those that pass the
 * build-time screen: not suspended, not ST, listed >= 60 trading days, liquid, no hard invalidation), the
 * best `mainShare` by score are `main` and the next `observeShare` are `observe`, each only at or above its
 * absolute floor. The cut is a score: any row at or above it gets the tier, and a hard invalidation is always
 * `reject`. On a weak-regime day `main` is limited to the best `weakMainShare`; the rows between the two cuts
 * become `observe` and the plan counts them (`card_counts.weak_regime_demoted`).
 */
export const TIER_RULES = Object.freeze({
  mainShare: 0.05,
  observeShare: 0.1,
  weakMainShare: 0.025,
  mainFloor: 45,
  observeFloor: 38,
})

export type Tier = 'main' | 'observe' | 'reject'
