import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { TIER_RULES } from '../../src/domain/build-rules.js'
import { EDGE_RULES, type TradeEdge, tradeEdge } from '../../src/domain/expected-edge.js'
import { type BarSeries, type BuildInput, scoreDay } from '../../src/domain/scoring.js'
import { combineSignals } from '../../src/domain/signal-score.js'
import { learnWeights, SIGNAL_PRIOR, type SignalWeights, WEIGHT_RULES } from '../../src/domain/signal-weights.js'
import { SIGNAL_NAMES, type SignalValues } from '../../src/domain/signals.js'
import { roundTo } from '../../src/domain/stats.js'
import { assignTiers } from '../../src/domain/tiers.js'
import { tierRow } from '../support/tier-rows.js'

const calendar = Array.from({ length: 130 }, (_, i) => {
  const d = new Date(Date.UTC(2026, 0, 1) + i * 86_400_000)
  return d.toISOString().slice(0, 10)
})
const T = calendar.at(-1)!
const NO_PREVIOUS: ReadonlyMap<string, number> = new Map()
const PRIOR_WEIGHTS = learnWeights([], T)

function series(closes: number[], options: Partial<BarSeries> = {}): BarSeries {
  const dates = calendar.slice(-closes.length)
  return {
    dates,
    close: closes,
    adjFactor: closes.map(() => 1),
    amount: closes.map(() => 1e8),
    volume: closes.map(() => 1e6),
    suspended: closes.map(() => false),
    preClose: closes.at(-2) ?? null,
    isSt: false,
    ...options,
  }
}

/** A random-walk close series from a seed, deterministic. */
function walk(seed: number, length = 130): number[] {
  let x = seed * 9301 + 49297
  const out: number[] = []
  let price = 10 + (seed % 7)
  for (let i = 0; i < length; i++) {
    x = (x * 9301 + 49297) % 233280
    price *= 1 + (x / 233280 - 0.5) * 0.06
    out.push(roundTo(price, 2))
  }
  return out
}

function market(n: number, overrides: Partial<BuildInput> = {}): BuildInput {
  const codes = Array.from({ length: n }, (_, i) => `6${String(i + 1).padStart(5, '0')}.SH`)
  return {
    date: T,
    calendar,
    securities: codes.map((code) => ({ code, name: code, list_date: '2020-01-01', board: 'main' })),
    bars: new Map(codes.map((code, i) => [code, series(walk(i + 1), { amount: walk(i + 1).map((c) => c * 1e7) })])),
    edges: [],
    events: [],
    facts: new Map(codes.map((code, i) => [code, { upside: null, quality: null, invalidated: false, peTtm: 5 + i }])),
    indexReturns: new Map(calendar.map((d, i) => [d, ((i % 5) - 2) / 1000])),
    weights: PRIOR_WEIGHTS,
    previousMain: NO_PREVIOUS,
    ...overrides,
  }
}

function withWeights(w: Partial<Record<(typeof SIGNAL_NAMES)[number], number>>): SignalWeights {
  return Object.fromEntries(
    SIGNAL_NAMES.map((name) => [name, { weight: w[name] ?? 0, prior: 0, icMean: null, days: 0 }]),
  ) as SignalWeights
}

describe('scoreDay (PLAN_VERSION 5)', () => {
  it('scores every listed stock with a bar on the date, 0..100 by percentile among eligible, ranked best first', () => {
    const day = scoreDay(market(60))
    expect(day.rows).toHaveLength(60)
    expect(day.rows.map((r) => r.rank)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1))
    for (let i = 1; i < day.rows.length; i++) expect(day.rows[i - 1]!.score).toBeGreaterThanOrEqual(day.rows[i]!.score)
    expect(day.rows[0]!.score).toBeGreaterThan(98)
    expect(day.rows.at(-1)!.score).toBeLessThan(2)
  })

  it('has no floor a market with fewer inputs cannot reach: bars alone put names in main, each worth its trades', () => {
    const day = scoreDay(market(500, { facts: new Map() }))
    const main = day.rows.filter((r) => r.tier === 'main')
    expect(main.length).toBeGreaterThanOrEqual(10)
    expect(main.length).toBeLessThanOrEqual(TIER_RULES.mainSlots)
    for (const r of main) expect(r.tier_rule).toMatch(/^entered: expected excess \S+ >= round trip/)
    expect(day.cuts.emptyReason).toBeNull()
  })

  it('a missing signal is missing: no key, no points, and its weight goes to the signals the stock has', () => {
    const input = market(40)
    const facts = new Map(input.facts)
    facts.set('600001.SH', { upside: null, quality: null, invalidated: false, peTtm: null })
    const day = scoreDay({ ...input, facts })
    const row = day.rows.find((r) => r.code === '600001.SH')!
    expect(row.signals.value_ep).toBeUndefined()
    expect(row.components.value_ep).toBeUndefined()
    const other = day.rows.find((r) => r.code === '600002.SH')!
    expect(other.components.value_ep).toBeDefined()
  })

  it('main stays empty only by a stated rule: no signal carries weight', () => {
    const day = scoreDay(market(60, { weights: withWeights({}) }))
    expect(day.rows.filter((r) => r.tier === 'main')).toHaveLength(0)
    expect(day.cuts.emptyReason).toBe('no signal carries weight (every weight is 0)')
  })
})

describe('corporate actions (property)', () => {
  /** A market whose volumes vary by stock and day, so `abnormal_turnover` separates stocks. */
  function varyingVolumes(n: number): BuildInput {
    const base = market(n)
    const bars = new Map(
      [...base.bars].map(([code, s], k) => [
        code,
        { ...s, volume: s.close.map((_, i) => 1e6 * (1 + (((i * (k + 3)) % 11) + (i > 120 ? k % 5 : 0)) / 4)) },
      ]),
    )
    return { ...base, bars }
  }

  it('a twin with a 10-for-10 bonus issue inside every window scores exactly as the stock it copies', () => {
    const input = varyingVolumes(40)
    const [code, original] = [...input.bars][7]!
    const twin = 'TWIN'
    fc.assert(
      fc.property(fc.integer({ min: 1, max: original.close.length - 1 }), (exDay) => {
        // from the ex-date on: half the price, twice the shares traded, the cumulative factor doubled
        const exRights = (i: number) => i >= exDay
        const bonus: BarSeries = {
          ...original,
          close: Array.from(original.close, (c, i) => (exRights(i) ? c / 2 : c)),
          volume: Array.from(original.volume!, (v, i) => (exRights(i) ? v * 2 : v)),
          adjFactor: Array.from(original.adjFactor, (f, i) => (exRights(i) ? f * 2 : f)),
          preClose:
            original.preClose === null
              ? null
              : exDay <= original.close.length - 2
                ? original.preClose / 2
                : original.preClose,
        }
        const day = scoreDay({
          ...input,
          securities: [...input.securities, { code: twin, name: twin, list_date: '2020-01-01', board: 'main' }],
          bars: new Map([...input.bars, [twin, bonus]]),
          facts: new Map([...input.facts, [twin, input.facts.get(code)!]]),
        })
        const of = (c: string) => {
          const row = day.rows.find((r) => r.code === c)!
          return { score: row.score, signals: row.signals, components: row.components, tier: row.tier }
        }
        expect(of(twin)).toEqual(of(code))
        expect(of(code).signals.abnormal_turnover).toBeDefined()
      }),
      { numRuns: 40 },
    )
  })
})

describe('the points of a score (property)', () => {
  const weightArb = fc.dictionary(fc.constantFrom(...SIGNAL_NAMES), fc.double({ min: -0.1, max: 0.1, noNaN: true }))
  it('add up to the score on every row of any market and any weights, none negative', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 40 }), weightArb, fc.integer({ min: 0, max: 1000 }), (n, w, seed) => {
        const input = market(n, { weights: withWeights(w) })
        const bars = new Map(
          [...input.bars].map(([code, b], i) => [code, series(walk(seed + i), { amount: b.amount })]),
        )
        for (const row of scoreDay({ ...input, bars }).rows) {
          const sum = Object.values(row.components).reduce((a, b) => a + b, 0)
          expect(roundTo(sum, 2)).toBe(row.score)
          for (const v of Object.values(row.components)) expect(v).toBeGreaterThanOrEqual(0)
        }
      }),
      { numRuns: 60 },
    )
  })

  it('a missing signal redistributes its weight: the same as giving it weight 0', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom(...SIGNAL_NAMES), fc.double({ min: -1, max: 1, noNaN: true })),
        weightArb,
        fc.constantFrom(...SIGNAL_NAMES),
        (z, w, dropped) => {
          const without: SignalValues = { ...z }
          delete without[dropped]
          const a = combineSignals(without, withWeights(w))
          const b = combineSignals(z, withWeights({ ...w, [dropped]: 0 }))
          if (a.raw === null) expect(b.raw).toBeNull()
          else expect(b.raw).toBeCloseTo(a.raw, 12)
        },
      ),
    )
  })

  it('a stock with one signal at the top ranks with one that has every signal at the top (nothing imputed)', () => {
    const weights = withWeights({ reversal_5d: 0.03, value_ep: 0.02 })
    expect(combineSignals({ reversal_5d: 1 }, weights).raw).toBe(1)
    expect(combineSignals({ reversal_5d: 1, value_ep: 1 }, weights).raw).toBe(1)
  })
})

describe('walk-forward weights', () => {
  const day = (date: string, exitDate: string, ic: number) => ({ date, exitDate, ic: { reversal_5d: ic } })

  const learning = { ...WEIGHT_RULES, learn: true }

  it('stay at the prior by default (PLAN_VERSION 4), whatever the ICs, which are still reported', () => {
    const many = Array.from({ length: 60 }, (_, i) => day(calendar[i]!, calendar[i + 5]!, -0.1))
    const fixed = learnWeights(many, T).reversal_5d
    expect(fixed).toMatchObject({ weight: SIGNAL_PRIOR.reversal_5d, days: 60, icMean: -0.1 })
  })

  it('start at the prior and move toward the measured IC with shrinkage once there are enough days', () => {
    expect(learnWeights([], T, learning).reversal_5d.weight).toBe(SIGNAL_PRIOR.reversal_5d)
    const few = Array.from({ length: WEIGHT_RULES.minDays - 1 }, (_, i) => day(calendar[i]!, calendar[i + 5]!, -0.1))
    expect(learnWeights(few, T, learning).reversal_5d.weight).toBe(SIGNAL_PRIOR.reversal_5d)
    const many = Array.from({ length: 60 }, (_, i) => day(calendar[i]!, calendar[i + 5]!, -0.1))
    const learned = learnWeights(many, T, learning).reversal_5d
    const k = WEIGHT_RULES.priorDays
    expect(learned.weight).toBeCloseTo((60 * -0.1 + k * SIGNAL_PRIOR.reversal_5d) / (60 + k), 6)
    expect(learned).toMatchObject({ days: 60, icMean: -0.1 })
  })

  it('read nothing from T on: days whose exit is on or after T change no weight (property)', () => {
    const past = Array.from({ length: 50 }, (_, i) => day(calendar[i]!, calendar[i + 5]!, ((i % 7) - 3) / 50))
    const asOf = calendar[60]!
    const base = learnWeights(past, asOf, learning)
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 56, max: 124 }), fc.double({ min: -0.5, max: 0.5, noNaN: true })), {
          maxLength: 40,
        }),
        (future) => {
          // an exit on T itself included: the chain's outcomes step writes those after T's first build
          const later = future.map(([i, ic]) => day(calendar[i]!, calendar[Math.max(60, i + 5)]!, ic))
          expect(learnWeights([...past, ...later], asOf, learning)).toEqual(base)
        },
      ),
    )
  })
})

describe('main places: entry, stay and switch against cost (PLAN_VERSION 6)', () => {
  const rows = (scores: number[]) =>
    scores.map((score, i) => {
      const {
        tier: _t,
        tier_rule: _r,
        ...row
      } = tierRow({ code: `6${String(i + 1).padStart(5, '0')}.SH`, rank: i + 1, score })
      return row
    })
  const scores = Array.from({ length: 40 }, (_, i) => roundTo(99.5 - i, 2))
  /** Hand-set edges: every row expected to lose 0.1% by default, selling costs 0.5%, buying 0.6%. */
  const edge = (alpha: number, buy = 0.006, sell = 0.005, fillsFirstDay = true, vol = 0.03): TradeEdge => ({
    alpha,
    buy,
    sell,
    roundTrip: buy + sell,
    vol,
    fillsFirstDay,
  })
  /** Holdings have been in main for the α's whole horizon unless `heldDays` says otherwise. */
  const ctx = (
    day: ReturnType<typeof rows>,
    set: Record<number, TradeEdge>,
    previousMain: string[] = [],
    weak = false,
    heldDays: Record<string, number> = {},
  ) => ({
    weak,
    previousMain: new Map(previousMain.map((code) => [code, heldDays[code] ?? EDGE_RULES.horizon])),
    bookSize: 100e6,
    edges: new Map(day.map((r, i) => [r.code, set[i] ?? edge(-0.001)])),
  })
  type TieredRows = { rows: Array<{ code: string; tier: string; tier_rule: string }> }
  const tierOf = (tiered: TieredRows, code: string) => tiered.rows.find((r) => r.code === code)!
  /** The codes in `main`, in the order the rows come. */
  const mainOf = (tiered: TieredRows): string[] => tiered.rows.filter((r) => r.tier === 'main').map((r) => r.code)

  it('an entrant takes a free place only when its expected excess covers its round trip', () => {
    const day = rows(scores)
    // row 0: 1.0% against a 1.1% round trip (the best score, not bought); row 5: 1.2% covers it
    const tiered = assignTiers(day, ctx(day, { 0: edge(0.01), 5: edge(0.012) }))
    expect(mainOf(tiered)).toEqual([day[5]!.code])
    expect(tierOf(tiered, day[5]!.code).tier_rule).toBe(
      'entered: expected excess 1.20% >= round trip 1.10% at 100 M CNY',
    )
    expect(tierOf(tiered, day[0]!.code)).toMatchObject({ tier: 'observe' })
    expect(tierOf(tiered, day[0]!.code).tier_rule).toMatch(
      /expected excess 1\.00% below its round trip 1\.10% at 100 M CNY/,
    )
  })

  it('free places go to the largest expected excess net of the round trip (at equal risk), not the best score', () => {
    const day = rows(scores)
    const set: Record<number, TradeEdge> = {}
    for (let i = 0; i < 25; i++) set[i] = edge(0.012 + i * 0.001) // the worse the score, the more it is expected to earn
    const main = mainOf(assignTiers(day, ctx(day, set)))
    expect(main).toHaveLength(TIER_RULES.mainSlots)
    expect(main.sort()).toEqual(
      day
        .slice(5, 25)
        .map((r) => r.code)
        .sort(),
    )
  })

  it('the last free place goes to the best expected excess net of cost per unit of risk, not the largest', () => {
    const day = rows(scores)
    const held = day.slice(21, 40).map((r) => r.code) // one free place
    const set: Record<number, TradeEdge> = {}
    for (let i = 21; i < 40; i++) set[i] = edge(0.035) // worth keeping: no switch pays
    // row 0: 4% − 1.1% = 2.9% at 6% a day (0.48 per unit); row 1: 2% − 1.1% = 0.9% at 1.5% a day (0.60 per unit)
    set[0] = edge(0.04, 0.006, 0.005, true, 0.06)
    set[1] = edge(0.02, 0.006, 0.005, true, 0.015)
    const tiered = assignTiers(day, ctx(day, set, held))
    expect(tierOf(tiered, day[1]!.code)).toMatchObject({ tier: 'main' })
    expect(tierOf(tiered, day[0]!.code)).toMatchObject({ tier: 'observe' })
  })

  it('a holding stays while it is expected to earn more than selling it costs, and leaves below that', () => {
    const day = rows(scores)
    const stays = day[30]!.code // expected −0.4%, selling costs 0.5%: stays
    const goes = day[31]!.code // expected −0.6%: leaves
    const tiered = assignTiers(day, ctx(day, { 30: edge(-0.004), 31: edge(-0.006) }, [stays, goes]))
    expect(tierOf(tiered, stays)).toMatchObject({ tier: 'main' })
    expect(tierOf(tiered, stays).tier_rule).toMatch(/^kept from yesterday's main: expected excess -0\.40% >= -0\.50%/)
    expect(tierOf(tiered, goes)).toMatchObject({ tier: 'reject' })
    expect(tierOf(tiered, goes).tier_rule).toMatch(/^left main: expected excess -0\.60% below -0\.50%/)
  })

  it('a switch that pays for both trades replaces the weakest holding; one that does not leaves the book alone', () => {
    const day = rows(scores)
    const held = day.slice(20, 40).map((r) => r.code) // a full book
    const set: Record<number, TradeEdge> = {}
    for (let i = 20; i < 40; i++) set[i] = edge(0.01)
    set[39] = edge(0.001) // the weakest holding: 0.1% expected, 0.5% to sell
    // entrant 0: 1.7% − 0.1% = 1.6% >= 0.5% + 0.6%: pays. Entrant 1: 1.2% − 1.0% (the next weakest) < 1.1%: does not
    set[0] = edge(0.017)
    set[1] = edge(0.012)
    const tiered = assignTiers(day, ctx(day, set, held))
    const main = mainOf(tiered)
    expect(main).toHaveLength(20)
    expect(main).toContain(day[0]!.code)
    expect(main).not.toContain(day[39]!.code)
    expect(main).not.toContain(day[1]!.code)
    expect(tierOf(tiered, day[0]!.code).tier_rule).toBe(
      `replaced ${day[39]!.code}: expected excess 1.70% less its 0.10% >= 1.10%, the switch's cost`,
    )
    expect(tierOf(tiered, day[39]!.code).tier_rule).toMatch(new RegExp(`^left main: replaced by ${day[0]!.code}`))
    expect(tierOf(tiered, day[1]!.code).tier_rule).toMatch(/places are taken and no switch pays/)
  })

  it('a holding is switched out only once it has been in main for the horizon its α is forecast over', () => {
    const day = rows(scores)
    const held = day.slice(20, 40).map((r) => r.code)
    const set: Record<number, TradeEdge> = {}
    for (let i = 20; i < 40; i++) set[i] = edge(0.01)
    set[39] = edge(0.001) // the weakest holding; entrant 0 beats it by 1.6% >= the switch's 1.1%
    set[38] = edge(0.002) // the next weakest
    set[0] = edge(0.017)
    const weakest = day[39]!.code
    const young = assignTiers(day, ctx(day, set, held, false, { [weakest]: EDGE_RULES.horizon - 1 }))
    // 19 days in: the weakest holding keeps its place, and the switch takes the next weakest, held 20 days
    expect(tierOf(young, weakest)).toMatchObject({ tier: 'main' })
    expect(tierOf(young, weakest).tier_rule).toMatch(/; held 19 of 20 days: not yet switchable$/)
    expect(tierOf(young, day[20]!.code).tier_rule).toMatch(/; held 20 days or more: switchable$/)
    expect(tierOf(young, day[0]!.code).tier_rule).toMatch(new RegExp(`^replaced ${day[38]!.code}:`))
    const allYoung = Object.fromEntries(held.map((code) => [code, 3]))
    const none = assignTiers(day, ctx(day, set, held, false, allYoung))
    expect(tierOf(none, day[0]!.code)).toMatchObject({ tier: 'observe' })
    expect(tierOf(none, day[0]!.code).tier_rule).toMatch(
      /no switch pays \(a name is held 20 days before it can be switched\)/,
    )
    expect(mainOf(none).sort()).toEqual([...held].sort())
    // a weak day switches nothing: the holding that would go stays, and its words say why
    const weakDay = assignTiers(day, ctx(day, set, held, true, { [weakest]: EDGE_RULES.horizon - 1 }))
    expect(tierOf(weakDay, day[38]!.code).tier_rule).toMatch(
      /; held 20 days or more: switchable, but a weak day switches nothing$/,
    )
    expect(tierOf(weakDay, weakest).tier_rule).toMatch(/; held 19 of 20 days: not yet switchable$/)
    expect(tierOf(weakDay, day[0]!.code).tier).not.toBe('main')
  })

  it('a name entered today is not switched out for a better one the same day', () => {
    const day = rows(scores)
    const held = day.slice(21, 40).map((r) => r.code) // 19 held at 5%: one free place
    const set: Record<number, TradeEdge> = {}
    for (let i = 21; i < 40; i++) set[i] = edge(0.05)
    set[0] = edge(0.03) // 3% − 1.1% round trip = 1.9%: takes the free place
    // 6% − (0.6% + 5% to sell) = 0.4% net of its round trip, so it comes second for the free place; but it beats
    // entrant 0 by 3% >= 0.5% + 0.6%, the cost of selling 0 and buying it: a switch, were 0 a holding
    set[1] = edge(0.06, 0.006, 0.05)
    const tiered = assignTiers(day, ctx(day, set, held))
    expect(tierOf(tiered, day[0]!.code)).toMatchObject({ tier: 'main' })
    expect(tierOf(tiered, day[1]!.code)).toMatchObject({ tier: 'observe' })
    expect(mainOf(tiered)).toHaveLength(20)
  })

  it('an entrant whose order would not fill in a day within the participation cap takes no place', () => {
    const day = rows(scores)
    const set = { 0: edge(0.05, 0.006, 0.005, false), 1: edge(0.02) }
    const tiered = assignTiers(day, ctx(day, set))
    expect(mainOf(tiered)).toEqual([day[1]!.code])
    expect(tierOf(tiered, day[0]!.code)).toMatchObject({ tier: 'observe' })
    expect(tierOf(tiered, day[0]!.code).tier_rule).toBe(
      'score 99.5: expected excess 5.00% covers its round trip 1.10%, but an order of 5 M CNY is above 5% of its 20-day traded value: it would not fill in a day',
    )
    // held already, the same name keeps its place: the rule is about buying
    const held = assignTiers(day, ctx(day, set, [day[0]!.code]))
    expect(tierOf(held, day[0]!.code)).toMatchObject({ tier: 'main' })
  })

  it('a weak day takes no entrant and switches nothing, and keeps every holding that pays to hold', () => {
    const day = rows(scores)
    const held = day.slice(30, 40).map((r) => r.code)
    const set: Record<number, TradeEdge> = { 0: edge(0.03), 1: edge(0.03) }
    for (let i = 30; i < 40; i++) set[i] = edge(0.0)
    const weak = assignTiers(day, ctx(day, set, held, true))
    expect(mainOf(weak).sort()).toEqual([...held].sort())
    expect(weak.weakDemoted).toBe(2)
    expect(tierOf(weak, day[0]!.code).tier_rule).toBe(
      'weak regime: no new entries today; expected excess 3.00% covers its round trip 1.10%: would enter on a normal day',
    )
    const normal = assignTiers(day, ctx(day, set, held))
    expect(mainOf(normal)).toHaveLength(12)
  })

  it('a name that closed limit-up on T takes no place; one already held keeps its place', () => {
    const day = rows(scores).map((r, i) => (i < 2 ? { ...r, flags: ['limit_up_close' as const] } : r))
    const set = { 0: edge(0.02), 1: edge(0.02) }
    const fresh = assignTiers(day, ctx(day, set))
    expect(fresh.rows[0]).toMatchObject({ tier: 'observe' })
    expect(fresh.rows[0]!.tier_rule).toMatch(/closed limit-up on T: not buyable at the open/)
    const held = assignTiers(day, ctx(day, set, [day[1]!.code]))
    expect(held.rows[1]).toMatchObject({ tier: 'main' })
  })

  it('ineligible rows (ST, suspended, new, illiquid) take no main place, held or not', () => {
    const day = rows(scores).map((r, i) => (i < 3 ? { ...r, is_st: true } : r))
    const { rows: tiered, cuts } = assignTiers(day, ctx(day, { 0: edge(0.05), 1: edge(0.05) }, [day[2]!.code]))
    expect(tiered.slice(0, 3).every((r) => r.tier !== 'main')).toBe(true)
    expect(cuts.eligible).toBe(37)
  })
})

describe('tradeEdge: expected excess and costs, worked by hand', () => {
  it('a 97.72nd percentile (z = 2) at 3% daily volatility over 20 days, traded at 100 M CNY', () => {
    const liquid = tradeEdge({ score: 97.725, vol20d: 0.03, amountMa20: 200e6 }, '2025-03-03', 100e6)
    // α = 0.05 × 0.03 × √20 × 2; a 5 M order is 2.5% of 200 M: impact 0.75 × 0.03 × √0.025
    expect(liquid.alpha).toBeCloseTo(0.05 * 0.03 * Math.sqrt(20) * 2.0, 4)
    expect(liquid.buy).toBeCloseTo(0.00025 + 0.0005 + 0.75 * 0.03 * Math.sqrt(0.025), 10)
    expect(liquid.sell).toBeCloseTo(liquid.buy + 0.0005, 10)
    expect(liquid.roundTrip).toBeCloseTo(2 * liquid.buy + 0.0005, 10)
    // 50 M a day: the order is worked at the 5% cap (2.5 M a day), each piece at a 5% share
    const thin = tradeEdge({ score: 97.725, vol20d: 0.03, amountMa20: 50e6 }, '2025-03-03', 100e6)
    expect(thin.buy).toBeCloseTo(0.00025 + 0.0005 + 0.75 * 0.03 * Math.sqrt(0.05), 10)
    // a 5 M order fills in a day within 5% of 100 M a day or more, not of 99.9 M
    expect(liquid.vol).toBe(0.03)
    expect(liquid.fillsFirstDay).toBe(true)
    expect(thin.fillsFirstDay).toBe(false)
    expect(tradeEdge({ score: 90, vol20d: 0.03, amountMa20: 100e6 }, '2025-03-03', 100e6).fillsFirstDay).toBe(true)
    expect(tradeEdge({ score: 90, vol20d: 0.03, amountMa20: 99.9e6 }, '2025-03-03', 100e6).fillsFirstDay).toBe(false)
    expect(tradeEdge({ score: 90, vol20d: 0.03, amountMa20: 99.9e6 }, '2025-03-03', 20e6).fillsFirstDay).toBe(true)
    // before 2023-08-28 stamp duty was 0.1%
    expect(tradeEdge({ score: 50, vol20d: null, amountMa20: 50e6 }, '2023-01-03', 100e6).alpha).toBeCloseTo(0, 12)
    expect(
      tradeEdge({ score: 60, vol20d: 0.03, amountMa20: 200e6 }, '2023-01-03', 100e6).sell - liquid.sell,
    ).toBeCloseTo(0.0005, 10)
  })
})

describe('tradability flags', () => {
  const flagsOf = (bar: Partial<BarSeries>, listDate = '2020-01-01', board = 'main') =>
    scoreDay(
      market(1, {
        securities: [{ code: '600001.SH', name: 'X', list_date: listDate, board }],
        bars: new Map([['600001.SH', series(walk(3), bar)]]),
      }),
    ).rows[0]!.flags
  const last = walk(3).slice(0, -1)

  it('closed limit-up on T (10% main board, 20% ChiNext) and one-word boards', () => {
    expect(flagsOf({ close: [...last, 11], preClose: 10, high: 11, low: 10.2 })).toEqual(['limit_up_close'])
    expect(flagsOf({ close: [...last, 10.99], preClose: 10, high: 11, low: 10 })).toEqual([])
    expect(flagsOf({ close: [...last, 11], preClose: 10 }, '2020-01-01', 'chinext')).toEqual([])
    expect(flagsOf({ close: [...last, 11], preClose: 10, open: 11, high: 11, low: 11 })).toEqual([
      'limit_up_close',
      'one_word_board',
    ])
  })

  it('a new listing', () => {
    expect(flagsOf({}, calendar[100]!)).toEqual(['new_listing'])
  })
})
