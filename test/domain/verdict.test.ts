import { describe, expect, it } from 'vitest'
import { buildFullPlan, cutPlan, DEFAULT_SIZES, selectRows } from '../../src/domain/plan-assembly.js'
import type { TierRow } from '../../src/domain/plan-types.js'
import { TierDataError, type VerdictContext, verdictFor } from '../../src/domain/verdict.js'
import { verdictText } from '../../src/domain/verdict-text.js'
import { tierRow } from '../support/tier-rows.js'

const DATE = '2026-11-20'

function context(
  rows: TierRow[],
  held: string[] = [],
  logic = new Map<string, { state: string; days: number; rule: string }>(),
): VerdictContext {
  const heldSet = new Set(held)
  const full = buildFullPlan({
    date: DATE,
    planVersion: '1',
    generatedAt: '',
    rows,
    held: heldSet,
    logic,
    prevDate: null,
    prevMain: [],
  })
  return {
    date: DATE,
    rows: new Map(rows.map((r) => [r.code, r])),
    names: new Map([['603999.SH', 'Listed Not Scored']]),
    held: heldSet,
    selection: selectRows(full, DEFAULT_SIZES),
  }
}

/** 30 main-tier rows: six themes of five (theme_cap 5 fills top 20 after four themes), then the rest. */
function market(): TierRow[] {
  const rows: TierRow[] = []
  for (let i = 1; i <= 30; i++) {
    const code = `600${String(i).padStart(3, '0')}.SH`
    rows.push(tierRow({ code, rank: i, score: 95 - i * 0.5, theme: i <= 6 ? 'Hot' : `Theme ${Math.ceil(i / 5)}` }))
  }
  rows[0] = {
    ...rows[0]!,
    components: { momentum: 14, trend: 8, heat: 34, upside: 19.5, liquidity: 9, quality: 10 },
    flags: ['limit_up_close'],
  }
  rows.push(tierRow({ code: '000101.SZ', rank: 31, score: 65, theme: 'Obs' }))
  rows.push(
    tierRow({
      code: '000102.SZ',
      rank: 32,
      score: 40,
      theme: 'Low',
      tier_rule: "score 40.0 below the day's observe cut 55.0 (top 15% of 36 eligible, floor 38)",
    }),
  )
  rows.push(tierRow({ code: '000103.SZ', rank: 33, score: 90, is_suspended: true }))
  rows.push(tierRow({ code: '000104.SZ', rank: 34, score: 90, is_st: true }))
  rows.push(tierRow({ code: '000105.SZ', rank: 35, score: 90, listed_days: 12 }))
  rows.push(tierRow({ code: '000106.SZ', rank: 36, score: 90, amount_ma20: 3e7 }))
  rows.push(tierRow({ code: '000107.SZ', rank: 37, score: 90 }))
  return rows
}

describe('verdictFor', () => {
  const rows = market()
  const ctx = context(
    rows,
    ['000107.SZ'],
    new Map([
      ['600001.SH', { state: 'confirmed', days: 4, rule: 'confirmed: score percentile EMA 85 >= 80 for 2 days' }],
    ]),
  )
  const plan = cutPlan(
    buildFullPlan({
      date: DATE,
      planVersion: '1',
      generatedAt: '',
      rows,
      held: ctx.held,
      logic: new Map([
        ['600001.SH', { state: 'confirmed', days: 4, rule: 'confirmed: score percentile EMA 85 >= 80 for 2 days' }],
      ]),
      prevDate: null,
      prevMain: [],
    }),
    DEFAULT_SIZES,
  )

  it('main and observe rows: the same decision, card rank and text as the plan rows', () => {
    for (const row of [...plan.main, ...plan.observe]) {
      const v = verdictFor(row.code, row.code, ctx)
      expect(v).toMatchObject({
        decision: row.decision,
        reason: null,
        card_rank: row.card_rank,
        verdict_text: row.verdict_text,
      })
    }
    expect(verdictFor('600001', '600001.SH', ctx).verdict_text).toBe(
      'main #1 · Hot · score 94.5 (heat 34.0/35, upside 19.5/20, momentum 14.0/15) · logic confirmed 4d · upside 10% (PE band) · ⚠ closed limit-up on T',
    )
  })

  it.each([
    [
      '600006.SH',
      'theme_cap',
      'reject: main tier #6, score 92.0 (heat 32.2/35, upside 18.4/20, momentum 13.8/15), theme Hot already has 5 in main (theme_cap 5)',
    ],
    [
      '600030.SH',
      'beyond_top',
      'reject: main tier #30, score 80.0 (heat 28.0/35, upside 16.0/20, momentum 12.0/15), beyond top 20 (main is full)',
    ],
    [
      '000102.SZ',
      'tier_reject',
      "reject: reject tier #32, score 40.0 (held back by heat 14.0/35, upside 8.0/20, momentum 6.0/15); score 40.0 below the day's observe cut 55.0 (top 15% of 36 eligible, floor 38)",
    ],
    ['000103.SZ', 'suspended', 'reject: suspended on the data date (main tier #33, score 90.0)'],
    ['000104.SZ', 'st', 'reject: ST name, dropped at screening (main tier #34, score 90.0)'],
    ['000105.SZ', 'new_listing', 'reject: listed 12 trading days ago, fewer than 60 (main tier #35, score 90.0)'],
    ['000106.SZ', 'illiquid', 'reject: 20-day mean amount 30.0m yuan below 50m (main tier #36, score 90.0)'],
    ['000107.SZ', 'held', 'reject: held in the portfolio, dropped at screening (main tier #37, score 90.0)'],
  ])('%s: reject for %s', (code, reason, text) => {
    expect(verdictFor(code, code, ctx)).toMatchObject({
      decision: 'reject',
      reason,
      verdict_text: text,
      card_rank: null,
    })
  })

  it('absent: details null, the name from securities when known', () => {
    expect(verdictFor('SH603999', '603999.SH', ctx)).toEqual({
      input: 'SH603999',
      code: '603999.SH',
      name: 'Listed Not Scored',
      decision: 'absent',
      reason: 'not_in_tier_table',
      verdict_text: `absent: not in the tier table of ${DATE}`,
      score: null,
      rank: null,
      tier: null,
      upside: null,
      heat: null,
      transmission: null,
      track: null,
      graph_evidence: null,
      card_rank: null,
      components: null,
      flags: [],
      valuation_method: null,
      tier_rule: null,
    })
    expect(verdictFor('600999', '600999.SH', ctx).name).toBeNull()
  })

  it('copies the detail fields of the tier row', () => {
    const v = verdictFor('600002.SH', '600002.SH', ctx)
    const row = rows[1]!
    expect(v).toMatchObject({
      name: row.name,
      score: row.score,
      rank: row.rank,
      tier: row.tier,
      upside: row.upside,
      heat: row.heat,
      transmission: row.transmission,
      track: row.track,
      graph_evidence: row.graph_evidence,
      components: row.components,
      flags: row.flags,
      valuation_method: row.valuation_method,
      tier_rule: row.tier_rule,
    })
  })

  it.each([
    [{ score: Number.NaN }, 'non-finite score'],
    [{ rank: 0 }, 'invalid rank'],
    [{ graph_evidence: {} as unknown as TierRow['graph_evidence'] }, 'graph_evidence that is not a list'],
  ])('throws TierDataError for a corrupt row (%j)', (over, message) => {
    const bad = tierRow({ code: '600777.SH', rank: 50, ...over })
    const c = context([...rows, bad])
    expect(() => verdictFor('600777', '600777.SH', c)).toThrow(TierDataError)
    expect(() => verdictFor('600777', '600777.SH', c)).toThrow(message)
  })
})

describe('verdictText: an observe row whose logic is broken says why it is there', () => {
  it('names the cause of a broken or weakening state, not of a confirmed one', () => {
    const row = { ...tierRow({ code: '600001.SH', rank: 40, score: 52, tier: 'observe' }), logic_state: 'broken' }
    const broken = verdictText({
      decision: 'observe',
      reason: null,
      card_rank: 3,
      row: { ...row, logic_rule: 'broken: score percentile EMA 25 below 30 after 5 days forming' },
      logicDays: 2,
    })
    expect(broken).toContain('logic broken 2d (score percentile EMA 25 below 30 after 5 days forming)')
    const confirmed = verdictText({
      decision: 'observe',
      reason: null,
      card_rank: 3,
      row: { ...row, logic_state: 'confirmed', logic_rule: 'confirmed: score percentile EMA 85 >= 80 for 2 days' },
      logicDays: 2,
    })
    expect(confirmed).toContain('logic confirmed 2d · ')
  })
})
