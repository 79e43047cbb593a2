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
 * Tiers (PLAN_VERSION 6, issue 47; docs/research-log.md R20). The score is a percentile among the day's *eligible* rows (those that pass the
 * build-time screen: not suspended, not ST, listed >= 60 trading days, liquid, no hard invalidation).
 * - `main` has `mainSlots` places, decided in return units against each trade's cost (`expected-edge.ts`):
 *   yesterday's names stay while eligible and expected to earn more than selling them costs; an eligible entrant
 *   (not closed at its limit up nor a one-word board on T, and whose order fills in a day within the participation
 *   cap) takes a free place when its expected excess covers its round trip, the best net of cost per unit of risk
 *   first; an entrant replaces a holding that has been in `main` for the α's horizon (20 plan days) when the gain in
 *   expected excess covers both trades.
 * - On a weak-regime day nobody enters and nobody is switched; the rows that would have entered are `observe` and
 *   the plan counts them (`card_counts.weak_regime_demoted`). The holdings are not cut.
 * - `observe`: every other row scoring at least `observePct`.
 * - `main` is empty only when no signal carries weight or no row is eligible; the build says which. It may hold
 *   fewer than `mainSlots` names (the rest of the book is cash).
 */
export const TIER_RULES = Object.freeze({
  mainSlots: 20,
  observePct: 85,
})

export type Tier = 'main' | 'observe' | 'reject'
