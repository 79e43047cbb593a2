/** Weights and thresholds of the nightly build; a change here is a new PLAN_VERSION. */
export const BUILD_RULES = Object.freeze({
  weights: Object.freeze({ heatTransmission: 0.35, momentumTrend: 0.25, upside: 0.2, liquidity: 0.1, quality: 0.1 }),
  momentumShare: 0.6, // of the momentum/trend term; the rest is trend
  mainTier: 70,
  observeTier: 55,
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
})

export type Tier = 'main' | 'observe' | 'reject'

export function tierOf(score: number): Tier {
  if (score >= BUILD_RULES.mainTier) return 'main'
  if (score >= BUILD_RULES.observeTier) return 'observe'
  return 'reject'
}
