import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { computeOutcomes, limitUpPrice, outcomeWindow, untradableReason } from '../../src/domain/outcomes.js'
import {
  DEFAULT_COSTS,
  type EvalDay,
  type EvalRow,
  evaluateTrackRecord,
  roundTripCost,
} from '../../src/domain/track-record.js'
import { averageRanks, longRunVariance, spearman, summarise } from '../../src/domain/track-stats.js'
import { referenceTrackRecord } from '../support/track-record-reference.js'

function row(code: string, score: number, decision: string, ret: number | null, reason: string | null = null): EvalRow {
  return {
    code,
    score,
    components: { upside: score / 100, heat: null, transmission: null },
    decision,
    logicState: 'forming',
    theme: 'T1',
    tradable: ret !== null,
    reason,
    ret,
  }
}

/** Three stocks over three plan days, h = 1; every figure below is computed by hand in the comments. */
function threeStocks(exitYear: string): EvalDay[] {
  return [
    {
      date: `${exitYear}-03-01`,
      exitDate: `${exitYear}-03-04`,
      regime: 'strong',
      benchRet: 0.01,
      rows: [row('A', 80, 'main', 0.1), row('B', 60, 'observe', 0.02), row('C', 40, 'reject', -0.04)],
    },
    {
      date: `${exitYear}-03-04`,
      exitDate: `${exitYear}-03-05`,
      regime: 'strong',
      benchRet: 0,
      rows: [row('A', 75, 'main', -0.02), row('B', 72, 'main', 0.06), row('C', 50, 'reject', 0.01)],
    },
    {
      date: `${exitYear}-03-05`,
      exitDate: `${exitYear}-03-06`,
      regime: 'weak',
      benchRet: 0.02,
      rows: [row('A', 70, 'main', 0.03), row('B', 90, 'main', null, 'limit_up_open'), row('C', 71, 'main', -0.01)],
    },
  ]
}

describe('outcomes of one plan date', () => {
  it('buys at the T+1 open, sells at the T+h close back-adjusted, and keeps untradable codes with a reason', () => {
    const rows = computeOutcomes({
      date: '2024-03-01',
      horizon: 5,
      entryDate: '2024-03-04',
      exitDate: '2024-03-08',
      codes: ['A', 'B', 'C', 'D', 'E'],
      entry: new Map([
        ['A', { open: 10, adjFactor: 1, suspended: false, limitUp: 11 }],
        ['B', { open: 20, adjFactor: 1, suspended: false, limitUp: 22 }],
        ['C', { open: 11, adjFactor: 1, suspended: false, limitUp: limitUpPrice(10, 0.1) }],
        ['D', { open: 9, adjFactor: 1, suspended: true, limitUp: 9.9 }],
      ]),
      exit: new Map([
        ['A', { close: 11, adjFactor: 1 }],
        ['B', { close: 19.6, adjFactor: 1.05 }], // ex-dividend inside the window: back-adjusted
        ['C', { close: 12, adjFactor: 1 }],
        ['D', { close: 9, adjFactor: 1 }],
      ]),
      benchmark: '000300.SH',
      benchmarkWindow: { open: 4000, close: 4040 },
      regime: 'neutral',
    })
    const by = new Map(rows.map((r) => [r.code, r]))
    expect(by.get('A')!.ret).toBeCloseTo(0.1, 12)
    expect(by.get('B')!.ret).toBeCloseTo((19.6 * 1.05) / 20 - 1, 12) // 0.029
    expect(by.get('A')!.bench_ret).toBeCloseTo(0.01, 12)
    expect(by.get('A')!.excess).toBeCloseTo(0.09, 12)
    expect(by.get('B')!.excess).toBeCloseTo(0.019, 12)
    expect(by.get('A')!.universe_ret).toBeCloseTo((0.1 + 0.029) / 2, 12)
    expect(by.get('C')).toMatchObject({ tradable: false, reason: 'limit_up_open', ret: null, excess: null })
    expect(by.get('D')).toMatchObject({ tradable: false, reason: 'suspended', ret: null })
    expect(by.get('E')).toMatchObject({ tradable: false, reason: 'suspended', ret: null }) // no bar on T+1
  })

  it('rounds the limit-up price to the fen and tells a limit open from one a fen below', () => {
    expect(limitUpPrice(12.34, 0.1)).toBe(13.57) // 13.574
    expect(limitUpPrice(10.05, 0.1)).toBe(11.06) // 11.055 rounds up
    expect(untradableReason({ open: 13.57, adjFactor: 1, suspended: false, limitUp: 13.57 })).toBe('limit_up_open')
    expect(untradableReason({ open: 13.56, adjFactor: 1, suspended: false, limitUp: 13.57 })).toBeNull()
    expect(untradableReason({ open: 13.56, adjFactor: 1, suspended: false, limitUp: null })).toBeNull()
  })

  it('has no window until T+h has happened', () => {
    const calendar = ['2024-03-01', '2024-03-04', '2024-03-05']
    expect(outcomeWindow(calendar, '2024-03-01', 2)).toEqual({ entryDate: '2024-03-04', exitDate: '2024-03-05' })
    expect(outcomeWindow(calendar, '2024-03-04', 2)).toBeUndefined()
    expect(outcomeWindow(calendar, '2024-03-01', 1)).toEqual({ entryDate: '2024-03-04', exitDate: '2024-03-04' })
  })
})

describe('track record of three stocks over three days (hand-computed)', () => {
  const record = evaluateTrackRecord(threeStocks('2024'), { horizon: 1 })

  it('rank IC per day: +1, then -0.5, then none (two tradable codes); mean 0.25', () => {
    expect(record.ic.daily.map((d) => d.score)).toEqual([1, -0.5, null])
    expect(record.ic.score.mean).toBeCloseTo(0.25, 12)
    expect(record.ic.score.n).toBe(2)
    // sd of (1, -0.5) = 1.0607; ICIR = 0.25 / 1.0607
    expect(record.ic.score.icir).toBeCloseTo(0.25 / Math.sqrt(1.125), 12)
  })

  it('main as a portfolio: returns, excess, turnover and costs day by day', () => {
    const days = record.portfolio.days
    // round trip from 2023-08-28 on: 2 x 0.025% commission + 0.05% stamp duty = 0.1%
    expect(roundTripCost(DEFAULT_COSTS, '2024-03-04')).toBeCloseTo(0.001, 15)
    expect(days.map((d) => d.names)).toEqual([1, 2, 2]) // B's limit-up open is left out on day 3
    expect(days.map((d) => d.turnover)).toEqual([1, 0.5, 0.5])
    expect(days[0]!.ret).toBeCloseTo(0.1, 12)
    expect(days[1]!.ret).toBeCloseTo(0.02, 12)
    expect(days[2]!.ret).toBeCloseTo(0.01, 12)
    expect(days.map((d) => d.excess)).toEqual([
      expect.closeTo(0.09, 12),
      expect.closeTo(0.02, 12),
      expect.closeTo(-0.01, 12),
    ])
    expect(days.map((d) => d.cost)).toEqual([
      expect.closeTo(0.001, 12),
      expect.closeTo(0.0005, 12),
      expect.closeTo(0.0005, 12),
    ])
    expect(days[2]!.cum_excess).toBeCloseTo(1.089 * 1.0195 * 0.9895, 12)
    expect(record.portfolio.cum_excess).toBeCloseTo(1.089 * 1.0195 * 0.9895 - 1, 12)
    expect(record.portfolio.max_drawdown).toBeCloseTo(0.0105, 12)
    expect(record.portfolio.mean_turnover).toBeCloseTo(2 / 3, 12)
  })

  it('main as a portfolio at h = 5: the IR on non-overlapping windows, not on overlapping cohorts / h', () => {
    // daily excess x_d (mean 0.1%, sd about 1%: a daily IR near 1.6), and cohort T's 5-day excess the sum of x over
    // its window: overlapping cohorts whose spread divided by 5 is about √5 too small
    let seed = 11
    const noise = () => {
      seed = (seed * 16807) % 2147483647
      return seed / 2147483647 - 0.5
    }
    const x = Array.from({ length: 405 }, () => 0.001 + noise() * 0.0346)
    const free = { commission: 0, stampDuty: [] }
    const days: EvalDay[] = Array.from({ length: 400 }, (_, i) => ({
      date: `d${String(i).padStart(3, '0')}`,
      exitDate: `d${String(i + 4).padStart(3, '0')}`,
      regime: null,
      benchRet: 0,
      rows: [
        row(
          'A',
          90,
          'main',
          x.slice(i, i + 5).reduce((a, b) => a + b, 0),
        ),
      ],
    }))
    const record = evaluateTrackRecord(days, { horizon: 5, costs: free })
    const daily = summarise(x.slice(0, 404))
    const dailyIr = (daily.mean! / daily.sd!) * Math.sqrt(252)
    const nets = days.map((d) => d.rows[0]!.ret! / 5)
    const overlapping = summarise(nets)
    const overlappingIr = (overlapping.mean! / overlapping.sd!) * Math.sqrt(252)
    expect(overlappingIr / dailyIr).toBeGreaterThan(1.8) // the old formula's inflation, about √5
    expect(Math.abs(record.portfolio.ir! / dailyIr - 1)).toBeLessThan(0.25)
    // by hand: offset 0's windows are cohorts 0, 5, 10, ...; the IR is the mean over the five offsets
    const offsetIr = (o: number) => {
      const s = summarise(days.filter((_, i) => i % 5 === o).map((d) => d.rows[0]!.ret!))
      return (s.mean! / s.sd!) * Math.sqrt(252 / 5)
    }
    expect(record.portfolio.ir).toBeCloseTo([0, 1, 2, 3, 4].reduce((a, o) => a + offsetIr(o), 0) / 5, 12)
  })

  it('main at h = 5: each cohort is a new round trip against the cohort whose capital it takes', () => {
    const mk = (i: number, codes: string[]): EvalDay => ({
      date: `2024-03-${String(i + 1).padStart(2, '0')}`,
      exitDate: `2024-03-${String(i + 5).padStart(2, '0')}`,
      regime: null,
      benchRet: 0,
      rows: codes.map((c) => row(c, 90, 'main', 0.01)),
    })
    // the same two names every day: the first five cohorts each buy the whole list, later ones nothing
    const record = evaluateTrackRecord(
      Array.from({ length: 7 }, (_, i) => mk(i, ['A', 'B'])),
      { horizon: 5 },
    )
    expect(record.portfolio.days.map((d) => d.turnover)).toEqual([1, 1, 1, 1, 1, 0, 0])
  })

  it('charges the 0.1% stamp duty on sales before 2023-08-28', () => {
    const old = evaluateTrackRecord(threeStocks('2023'), { horizon: 1 })
    expect(old.portfolio.days.map((d) => d.cost)).toEqual([
      expect.closeTo(0.0015, 12),
      expect.closeTo(0.00075, 12),
      expect.closeTo(0.00075, 12),
    ])
  })

  it('by decision: count, mean excess, hit rate; the untradable row counted apart', () => {
    const main = record.groups.decision.find((g) => g.key === 'main')!
    // excess of main rows: .09, -.02, .06, .01, -.03
    expect(main.count).toBe(5)
    expect(main.mean_excess).toBeCloseTo(0.022, 12)
    expect(main.hit_rate).toBeCloseTo(0.6, 12)
    const reject = record.groups.decision.find((g) => g.key === 'reject')!
    expect(reject.count).toBe(2) // -.05, +.01
    expect(reject.hit_rate).toBe(0.5)
    expect(record.untradable).toEqual({ limit_up_open: 1 })
    expect(record.groups.regime.map((g) => [g.key, g.count])).toEqual([
      ['strong', 6],
      ['weak', 2],
    ])
  })
})

describe('statistics', () => {
  it('average ranks: ties share their mean rank, in the input order', () => {
    // sorted 1 1 2 3 4 5 5 6 9: the 1s take ranks 1-2 (1.5), the 5s 6-7 (6.5)
    expect([...averageRanks([3, 1, 4, 1, 5, 9, 2, 6, 5])]).toEqual([4, 1.5, 5, 1.5, 6.5, 9, 3, 8, 6.5])
    expect([...averageRanks([2, 2, 2])]).toEqual([2, 2, 2])
    expect([...averageRanks([])]).toEqual([])
  })

  it('Spearman uses average ranks for ties', () => {
    expect(spearman([1, 2, 2, 3], [10, 20, 30, 40])).toBeCloseTo(0.9486832980505138, 12)
    expect(spearman([1, 1, 1], [1, 2, 3])).toBeNull()
  })

  it('the t of an unlagged mean is the plain s/sqrt(n)', () => {
    const x = [0.1, 0.12, 0.08, 0.02, 0, -0.02, 0.05, 0.07, 0.09, 0.03]
    const plain = summarise(x)
    const sd = Math.sqrt(x.reduce((s, v) => s + (v - plain.mean!) ** 2, 0) / (x.length - 1))
    expect(plain.t).toBeCloseTo(plain.mean! / (sd / Math.sqrt(x.length)), 12)
  })

  it('overlapping windows: Hansen-Hodrick sums the h - 1 autocovariances unshrunk (hand-computed)', () => {
    // x = 1 2 4 3 5 6, n = 6, mean 3.5, deviations -2.5 -1.5 0.5 -0.5 1.5 2.5
    // 6 g0 = 6.25 + 2.25 + 0.25 + 0.25 + 2.25 + 6.25 = 17.5
    // 6 g1 = 3.75 - 0.75 - 0.25 - 0.75 + 3.75 = 5.75
    // 6 g2 = -1.25 + 0.75 + 0.75 - 1.25 = -1
    // 2 lags (h = 3): 6 lrv = 17.5 + 2 (5.75) + 2 (-1) = 27, lrv = 4.5; var(mean) = 4.5 / 6 = 0.75
    // t = 3.5 / sqrt(0.75) = 4.04145...; Bartlett would weigh g1 by 2/3 and g2 by 1/3: 6 lrv = 24.5 (t 4.2426)
    const x = [1, 2, 4, 3, 5, 6]
    expect(longRunVariance(x, 2)).toBeCloseTo(4.5, 12)
    expect(summarise(x, 2).t).toBeCloseTo(3.5 / Math.sqrt(0.75), 12)
    expect(summarise(x, 2).t).toBeCloseTo(4.041451884327381, 12)
    expect(longRunVariance(x, 0)).toBeCloseTo(17.5 / 6, 12)
  })

  it('falls back to the Bartlett sum when the rectangular one is not positive (hand-computed)', () => {
    // x = 1 3 1 3, mean 2, deviations -1 1 -1 1: g0 = 4/4 = 1, g1 = -3/4
    // rectangular, 1 lag: 1 + 2 (-3/4) = -1/2, not a variance; Bartlett: 1 + 2 (1/2)(-3/4) = 1/4
    // var(mean) = (1/4) / 4 = 1/16, t = 2 / (1/4) = 8
    const x = [1, 3, 1, 3]
    expect(longRunVariance(x, 1)).toBeCloseTo(0.25, 12)
    expect(summarise(x, 1).t).toBeCloseTo(8, 12)
  })

  it('lags beyond the series stop at n - 1', () => {
    // x = 1 2 4 3 5 6 with 10 lags uses g1..g5; 6 g3 = -0.5*-2.5 + 1.5*-1.5 + 2.5*0.5 = 1.25 - 2.25 + 1.25 = 0.25,
    // 6 g4 = 1.5*-2.5 + 2.5*-1.5 = -7.5, 6 g5 = 2.5*-2.5 = -6.25: 6 lrv = 17.5 + 2 (5.75 - 1 + 0.25 - 7.5 - 6.25)
    // = -8 < 0, so Bartlett over 5 lags: 17.5 + 2 (5/6 5.75 + 4/6 (-1) + 3/6 0.25 + 2/6 (-7.5) + 1/6 (-6.25))
    // = 17.5 + 2 (4.25 / 6) = 113.5 / 6, lrv = 113.5 / 36
    expect(longRunVariance([1, 2, 4, 3, 5, 6], 10)).toBeCloseTo(113.5 / 36, 12)
  })
})

describe('the record assembled from per-day statistics', () => {
  const CODES = ['000001.SZ', '000002.SZ', '300001.SZ', '600000.SH', '600001.SH', '688001.SH', '830001.BJ']
  const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null })
  const evalRow = (code: string) =>
    fc
      .record({
        score: fc.integer({ min: 0, max: 6 }), // few values: ties in the ranks and the quintile order
        upside: maybe(fc.integer({ min: 0, max: 4 })),
        heat: fc.integer({ min: 0, max: 4 }),
        decision: maybe(fc.constantFrom('main', 'observe', 'reject', 'absent')),
        logicState: maybe(fc.constantFrom('forming', 'confirmed', 'weakening', 'broken')),
        theme: maybe(fc.constantFrom('T1', 'T2', 'T3')),
        reason: maybe(fc.constantFrom('suspended', 'limit_up_open')),
        ret: maybe(fc.integer({ min: -2000, max: 2000 }).map((bp) => bp / 10_000)), // returns in basis points
      })
      .map(
        (r): EvalRow => ({
          code,
          score: r.score,
          components: { upside: r.upside, heat: r.heat },
          decision: r.decision,
          logicState: r.logicState,
          theme: r.theme,
          tradable: r.reason === null,
          reason: r.reason,
          ret: r.reason === null ? r.ret : null,
        }),
      )
  const evalDay = (i: number) =>
    fc
      .record({
        codes: fc.subarray(CODES),
        regime: maybe(fc.constantFrom('strong', 'weak')),
        benchRet: maybe(fc.integer({ min: -500, max: 500 }).map((bp) => bp / 10_000)),
      })
      .chain(({ codes, regime, benchRet }) =>
        fc.tuple(...codes.map(evalRow)).map(
          (rows): EvalDay => ({
            date: `2024-04-${String(i + 10).padStart(2, '0')}`,
            exitDate: `2024-04-${String(i + 11).padStart(2, '0')}`,
            regime,
            benchRet,
            rows,
          }),
        ),
      )

  it('a group whose excess returns agree to 12 digits has no t, pooled or row by row', () => {
    // found by the property below: two days' excess returns that differ only in their last bits
    expect(0.0008 - 0.0228).not.toBe(-0.0447 + 0.0227)
    const day = (date: string, exitDate: string, benchRet: number, ret: number) => ({
      date,
      exitDate,
      regime: null,
      benchRet,
      rows: [
        {
          code: '000002.SZ',
          score: 0,
          components: { upside: null, heat: 0 },
          decision: null,
          logicState: null,
          theme: null,
          tradable: true,
          reason: null,
          ret,
        },
      ],
    })
    const days = [day('2024-04-11', '2024-04-12', 0.0228, 0.0008), day('2024-04-13', '2024-04-14', -0.0227, -0.0447)]
    const options = { horizon: 1, components: ['upside', 'heat'] }
    for (const record of [evaluateTrackRecord(days, options), referenceTrackRecord(days, options)]) {
      const pairs = Object.values(record.groups)
        .flat()
        .filter((g) => g.count === 2)
      expect(pairs.length).toBeGreaterThan(0)
      for (const g of pairs) {
        expect(g.mean_excess).toBeCloseTo(-0.022, 15)
        expect(g.t).toBeNull()
      }
    }
  })

  it('property: every figure is the row-by-row record, the pooled group means and t to 1e-12', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 12 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => evalDay(i)))),
        fc.constantFrom(1, 5),
        (days, horizon) => {
          const options = { horizon, components: ['upside', 'heat'] }
          const { groups, ...rest } = evaluateTrackRecord(days, options)
          const { groups: want, ...wantRest } = referenceTrackRecord(days, options)
          expect(rest).toEqual(wantRest)
          for (const kind of ['decision', 'logic_state', 'regime', 'theme'] as const) {
            expect(groups[kind].map((g) => [g.key, g.count, g.hit_rate])).toEqual(
              want[kind].map((g) => [g.key, g.count, g.hit_rate]),
            )
            groups[kind].forEach((g, i) => {
              for (const field of ['mean_excess', 't'] as const) {
                const w = want[kind][i]![field]
                if (w === null) expect(g[field]).toBeNull()
                else expect(Math.abs(g[field]! - w)).toBeLessThanOrEqual(1e-12 * Math.max(Math.abs(w), 1e-3))
              }
            })
          }
        },
      ),
      { numRuns: 300 },
    )
  })
})
