import type { TierRow } from '../../src/domain/plan-types.js'

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
    ...overrides,
  }
}
