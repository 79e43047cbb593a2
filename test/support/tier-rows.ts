import type { ScoreComponents, TierRow } from '../../src/domain/plan-types.js'
import { roundTo } from '../../src/domain/stats.js'

/** Components that sum to `score` (the build's invariant), split in the build's proportions. */
export function componentsFor(score: number): ScoreComponents {
  const part = (share: number) => roundTo(score * share, 2)
  const c = { momentum: part(0.15), trend: part(0.1), heat: part(0.35), upside: part(0.2), liquidity: part(0.1) }
  return { ...c, quality: roundTo(score - c.momentum - c.trend - c.heat - c.upside - c.liquidity, 2) }
}

/** A tier row with healthy screening facts; override what the test is about. */
export function tierRow(overrides: Partial<TierRow> & Pick<TierRow, 'code' | 'rank'>): TierRow {
  const score = overrides.score ?? 90 - overrides.rank * 0.5
  return {
    name: `Name ${overrides.code}`,
    score,
    tier: score >= 70 ? 'main' : score >= 55 ? 'observe' : 'reject',
    theme: 'Theme A',
    segment: 'Segment 1',
    track: 'tech',
    upside: 0.1,
    heat: 60,
    transmission: 0.5,
    graph_evidence: [],
    close: 10,
    is_suspended: false,
    is_st: false,
    listed_days: 500,
    amount_ma20: 2e8,
    invalidated: false,
    components: componentsFor(score),
    score_pct: null,
    tier_rule: 'set by the test',
    flags: [],
    valuation_method: 'pe_band',
    invalidation: null,
    ...overrides,
  }
}
