import { describe, expect, it } from 'vitest'
import { renderPlanMarkdown } from '../../src/domain/markdown.js'
import { buildFullPlan, cutPlan, DEFAULT_SIZES, decideCode, selectRows } from '../../src/domain/plan-assembly.js'
import type { TierRow } from '../../src/domain/plan-types.js'
import { regimeWithoutSnapshot } from '../../src/domain/regime.js'
import { assignTiers } from '../../src/domain/tiers.js'
import { tierRow } from '../support/tier-rows.js'

const code = (i: number): string => `600${String(i).padStart(3, '0')}.SH`

function full(rows: TierRow[], options: { held?: string[]; prevMain?: string[] } = {}) {
  return buildFullPlan({
    date: '2026-11-20',
    planVersion: '1',
    generatedAt: '2026-11-20T08:00:00.000Z',
    rows,
    held: new Set(options.held ?? []),
    logic: new Map(),
    prevDate: '2026-11-19',
    prevMain: options.prevMain ?? [],
  })
}

describe('plan assembly', () => {
  it('fills main in rank order up to top and observe up to obs_top', () => {
    const rows = [
      ...Array.from({ length: 30 }, (_, i) => tierRow({ code: code(i), rank: i + 1, score: 80, theme: `T${i}` })),
      ...Array.from({ length: 15 }, (_, i) => tierRow({ code: code(100 + i), rank: 31 + i, score: 60 })),
    ]
    const plan = cutPlan(full(rows), DEFAULT_SIZES)
    expect(plan.main.map((r) => r.code)).toEqual(rows.slice(0, 20).map((r) => r.code))
    expect(plan.observe.map((r) => r.code)).toEqual(rows.slice(30, 40).map((r) => r.code))
    expect(plan.main.map((r) => r.card_rank)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1))
    expect(plan.card_counts).toMatchObject({ main: 20, observe: 10, beyond_top: 10, beyond_obs_top: 5, reject: 15 })
  })

  it('skips a row whose theme already has theme_cap rows and never promotes it', () => {
    const rows = [
      ...Array.from({ length: 8 }, (_, i) => tierRow({ code: code(i), rank: i + 1, score: 85, theme: 'Hot' })),
      tierRow({ code: code(50), rank: 9, score: 80, theme: 'Other' }),
      tierRow({ code: code(60), rank: 10, score: 60, theme: 'Hot' }),
    ]
    const f = full(rows)
    const plan = cutPlan(f, { top: 20, obs_top: 10, theme_cap: 3 })
    expect(plan.main.map((r) => r.code)).toEqual([code(0), code(1), code(2), code(50)])
    expect(plan.observe.map((r) => r.code)).toEqual([code(60)])
    expect(plan.card_counts.theme_cap).toBe(5)
    const selection = selectRows(f, { top: 20, obs_top: 10, theme_cap: 3 })
    expect(decideCode(code(3), rows[3], new Set(), selection)).toEqual({
      decision: 'reject',
      reason: 'theme_cap',
      card_rank: null,
    })
  })

  it('caps no row without a theme: a market without themes still fills main to top', () => {
    const rows = Array.from({ length: 24 }, (_, i) =>
      tierRow({ code: code(i), rank: i + 1, score: 80, theme: null, segment: null }),
    )
    const plan = cutPlan(full(rows), { top: 20, obs_top: 10, theme_cap: 2 })
    expect(plan.main).toHaveLength(20)
    expect(plan.card_counts.theme_cap).toBe(0)
    expect(plan.card_counts.beyond_top).toBe(4)
  })

  it('drops held, suspended, ST, new and illiquid rows at screening, held first', () => {
    const rows = [
      tierRow({ code: code(1), rank: 1, is_suspended: true }),
      tierRow({ code: code(2), rank: 2, is_st: true }),
      tierRow({ code: code(3), rank: 3, listed_days: 59 }),
      tierRow({ code: code(4), rank: 4, amount_ma20: 49_999_999 }),
      tierRow({ code: code(5), rank: 5, is_st: true }),
      tierRow({ code: code(6), rank: 6, listed_days: 60, amount_ma20: 50_000_000 }),
    ]
    const f = full(rows, { held: [code(5)] })
    const plan = cutPlan(f, DEFAULT_SIZES)
    expect(plan.main.map((r) => r.code)).toEqual([code(6)])
    expect(plan.card_counts).toMatchObject({ held: 1, suspended: 1, st: 1, new_listing: 1, illiquid: 1 })
    const selection = selectRows(f, DEFAULT_SIZES)
    const held = new Set([code(5)])
    expect(decideCode(code(5), rows[4], held, selection).reason).toBe('held')
    expect(decideCode(code(1), rows[0], held, selection).reason).toBe('suspended')
    expect(decideCode(code(4), rows[3], held, selection).reason).toBe('illiquid')
  })

  it('never lets a held code into main, observe or candidates', () => {
    const rows = Array.from({ length: 40 }, (_, i) =>
      tierRow({ code: code(i), rank: i + 1, score: 80 - i, theme: `T${i % 7}` }),
    )
    const held = rows.filter((_, i) => i % 3 === 0).map((r) => r.code)
    const plan = cutPlan(full(rows, { held }), DEFAULT_SIZES)
    const shown = [...plan.main, ...plan.observe, ...plan.candidates].map((r) => r.code)
    expect(shown.filter((c) => held.includes(c))).toEqual([])
    expect(plan.card_counts.held).toBe(held.length)
  })

  it('decides reject-tier and absent codes', () => {
    const rows = [tierRow({ code: code(1), rank: 1, score: 40 })]
    const f = full(rows)
    const selection = selectRows(f, DEFAULT_SIZES)
    expect(decideCode(code(1), rows[0], new Set(), selection)).toMatchObject({
      decision: 'reject',
      reason: 'tier_reject',
    })
    expect(decideCode(code(2), undefined, new Set(), selection)).toMatchObject({
      decision: 'absent',
      reason: 'not_in_tier_table',
    })
    expect(f.screened_reject).toBe(1)
  })

  it('lists yesterday main codes missing today as watch with the reason', () => {
    const rows = [
      tierRow({ code: code(1), rank: 1, score: 80 }),
      tierRow({ code: code(2), rank: 2, score: 60 }),
      tierRow({ code: code(3), rank: 3, score: 30 }),
    ]
    const plan = cutPlan(full(rows, { prevMain: [code(1), code(2), code(3), code(9)] }), DEFAULT_SIZES)
    expect(plan.watch.map((w) => [w.code, w.reason])).toEqual([
      [code(2), 'observe'],
      [code(3), 'tier_reject'],
      [code(9), 'not_in_tier_table'],
    ])
  })

  it('groups segments pointed by main and observe rows', () => {
    const rows = [
      tierRow({ code: code(1), rank: 1, theme: 'A', segment: 's1', heat: 70 }),
      tierRow({ code: code(2), rank: 2, theme: 'A', segment: 's1', heat: 70 }),
      tierRow({ code: code(3), rank: 3, theme: 'B', segment: 's2', heat: 50, score: 60 }),
    ]
    expect(cutPlan(full(rows), DEFAULT_SIZES).segments_pointed).toEqual([
      { theme: 'A', segment: 's1', count: 2, codes: [code(1), code(2)], heat: 70 },
      { theme: 'B', segment: 's2', count: 1, codes: [code(3)], heat: 50 },
    ])
  })
})

describe('weak regime shrink', () => {
  const untiered = Array.from({ length: 600 }, (_, i) => {
    const {
      tier: _t,
      tier_rule: _r,
      ...row
    } = tierRow({ code: code(i), rank: i + 1, score: 100 - i / 6, theme: `T${i}` })
    return row
  })

  it('the plan counts the would-be entrants kept out on a weak day and the Markdown says so', () => {
    // the first ten rows held yesterday and worth holding; every row worth buying: a normal day fills the book
    const held = new Map(untiered.slice(0, 10).map((r) => [r.code, 5]))
    const edges = new Map(
      untiered.map((r) => [
        r.code,
        { alpha: 0.02, buy: 0.005, sell: 0.006, roundTrip: 0.011, vol: 0.03, fillsFirstDay: true },
      ]),
    )
    const ctx = (weak: boolean) => ({ weak, previousMain: held, edges, bookSize: 100e6 })
    const weak = cutPlan(full(assignTiers(untiered, ctx(true)).rows), DEFAULT_SIZES)
    expect(weak.main).toHaveLength(10)
    expect(weak.card_counts.weak_regime_demoted).toBe(10)
    expect(weak.observe[0]!.tier_rule).toMatch(/^weak regime: no new entries today/)
    const md = renderPlanMarkdown(weak, regimeWithoutSnapshot('2026-11-20'), {})
    expect(md).toContain(
      '_Weak regime: no new entries today (main keeps its holdings, at most 20); 10 would-be entrants moved to observe._',
    )
    const normal = cutPlan(full(assignTiers(untiered, ctx(false)).rows), DEFAULT_SIZES)
    expect(normal.main).toHaveLength(20)
    expect(normal.card_counts.weak_regime_demoted).toBe(0)
    expect(renderPlanMarkdown(normal, regimeWithoutSnapshot('2026-11-20'), {})).not.toContain('Weak regime')
  })

  it('plan rows carry components and flags', () => {
    const plan = cutPlan(
      full([tierRow({ code: code(1), rank: 1, score: 80, flags: ['limit_up_close'] })]),
      DEFAULT_SIZES,
    )
    expect(plan.main[0]).toMatchObject({ flags: ['limit_up_close'], valuation_method: 'pe_band' })
    const c = plan.main[0]!.components
    expect(Object.values(c).reduce((a, b) => a + b, 0)).toBeCloseTo(80, 9)
  })
})
