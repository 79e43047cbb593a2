import { describe, expect, it } from 'vitest'
import type { Board } from '../../src/domain/codes.js'
import {
  computeMarket,
  computeRegime,
  limitPrices,
  type Market,
  type MarketInput,
  type MarketStock,
  REGIME_RULES,
  REGIME_UNKNOWN,
  regimeWithoutSnapshot,
  type Signal,
} from '../../src/domain/regime.js'

const DATE = '2026-11-20'

const stock = (over: Partial<MarketStock> = {}): MarketStock => ({
  close: 10.2,
  pre_close: 10,
  amount: 1e8,
  board: 'main',
  is_st: false,
  is_suspended: false,
  above_ma20: true,
  ...over,
})

const many = (n: number, over: Partial<MarketStock>): MarketStock[] => Array.from({ length: n }, () => stock(over))

/** 20 days averaging exactly 1e12 with `last` as the day's amount. */
const history = (last: number): number[] => [...Array<number>(18).fill(1e12), 2e12 - last, last]

const INDEX = { code: '000300.SH', close: 3950.2, ma20: 3900.1 }

const input = (over: Partial<MarketInput> = {}): MarketInput => ({
  date: DATE,
  stocks: [],
  amountHistory: history(1e12),
  index: INDEX,
  ...over,
})

/** up / down / flat stocks (non-limit moves). */
const moves = (up: number, down: number, flat = 0): MarketStock[] => [
  ...many(up, { close: 10.2 }),
  ...many(down, { close: 9.8 }),
  ...many(flat, { close: 10 }),
]

describe('REGIME_RULES', () => {
  it('is deeply frozen', () => {
    expect(Object.isFrozen(REGIME_RULES)).toBe(true)
    expect(Object.isFrozen(REGIME_RULES.breadth)).toBe(true)
    expect(REGIME_UNKNOWN).toBe('unknown')
  })
})

describe('breadth', () => {
  it.each([
    [6, 4, 0.6, 'positive'],
    [59, 41, 0.59, 'neutral'],
    [4, 6, 0.4, 'neutral'],
    [39, 61, 0.39, 'negative'],
    [1499, 1001, 0.6, 'positive'], // 0.5996 is reported as 0.600 and judged as shown
    [10, 0, 1, 'positive'],
    [0, 10, 0, 'negative'],
  ] as const)('%i up / %i down -> up_ratio %f %s', (up, down, ratio, signal) => {
    const { breadth } = computeMarket(input({ stocks: moves(up, down, 3) }))
    expect(breadth).toEqual({ signal, up, down, flat: 3, up_ratio: ratio })
  })

  it('leaves out suspended names and names without a previous close', () => {
    const stocks = [
      ...moves(6, 4),
      ...many(5, { close: 9, is_suspended: true }),
      ...many(5, { close: 9, pre_close: null }),
    ]
    expect(computeMarket(input({ stocks })).breadth).toEqual({
      signal: 'positive',
      up: 6,
      down: 4,
      flat: 0,
      up_ratio: 0.6,
    })
  })

  it('counts ST names (they are left out of the limit counts only)', () => {
    const stocks = [...moves(1, 1), ...many(2, { close: 10.2, is_st: true })]
    expect(computeMarket(input({ stocks })).breadth).toMatchObject({ up: 3, down: 1, up_ratio: 0.75 })
  })

  it('is unknown with no stock, or with every stock flat', () => {
    expect(computeMarket(input({ stocks: [] })).breadth).toEqual({
      signal: 'unknown',
      up: null,
      down: null,
      flat: null,
      up_ratio: null,
    })
    expect(computeMarket(input({ stocks: many(3, { is_suspended: true }) })).breadth.signal).toBe('unknown')
    expect(computeMarket(input({ stocks: moves(0, 0, 4) })).breadth).toEqual({
      signal: 'unknown',
      up: 0,
      down: 0,
      flat: 4,
      up_ratio: null,
    })
  })
})

describe('limit prices and counts', () => {
  it.each([
    ['main', false, 10, 11, 9],
    ['b_share', false, 10, 11, 9],
    ['chinext', false, 10, 12, 8],
    ['star', false, 10, 12, 8],
    ['bse', false, 10, 13, 7],
    ['main', true, 10, 10.5, 9.5],
    ['main', false, 10.05, 11.06, 9.05], // 11.055 and 9.045 round half up
    ['main', false, 3.35, 3.69, 3.02], // 3.685 and 3.015
    ['chinext', false, 10.05, 12.06, 8.04],
  ] as const)('%s (ST %s) pre_close %f -> up %f, down %f', (board, st, pre, up, down) => {
    expect(limitPrices(pre, board, st, '2026-01-05')).toEqual({ up, down })
  })

  const at = (board: Board, close: number, over: Partial<MarketStock> = {}) =>
    stock({ board, close, pre_close: 10, ...over })

  it.each([
    ['main', 11, 10.99, 9, 9.01],
    ['chinext', 12, 11.99, 8, 8.01],
    ['star', 12, 11.99, 8, 8.01],
    ['bse', 13, 12.99, 7, 7.01],
  ] as const)('%s: limit-up at %f (not %f), limit-down at %f (not %f)', (board, up, nearUp, down, nearDown) => {
    const stocks = [at(board, up), at(board, nearUp), at(board, down), at(board, nearDown)]
    expect(computeMarket(input({ stocks })).limits).toMatchObject({ limit_up: 1, limit_down: 1 })
  })

  it('does not count a 10% move on a 20% or 30% board', () => {
    const stocks = [at('chinext', 11), at('star', 11), at('bse', 12), at('bse', 8)]
    expect(computeMarket(input({ stocks })).limits).toMatchObject({ limit_up: 0, limit_down: 0 })
  })

  it('leaves ST names (5%) and suspended names out of the counts', () => {
    const stocks = [
      at('main', 10.5, { is_st: true }),
      at('main', 9.5, { is_st: true }),
      at('main', 11, { is_st: true }),
      at('main', 11, { is_suspended: true }),
      at('main', 11),
    ]
    expect(computeMarket(input({ stocks })).limits).toMatchObject({ limit_up: 1, limit_down: 0 })
  })

  it("leaves a new listing's days without a limit out of the counts (main board from 2023-04-10)", () => {
    const stocks = [
      at('main', 11, { listed_days: 3 }),
      at('main', 11, { listed_days: 6 }),
      at('star', 12, { listed_days: 5 }),
    ]
    expect(computeMarket(input({ stocks })).limits).toMatchObject({ limit_up: 1, limit_down: 0 })
  })

  it('is unknown when no non-ST trading name has a previous close', () => {
    const stocks = [at('main', 10.5, { is_st: true }), at('main', 11, { pre_close: null })]
    expect(computeMarket(input({ stocks })).limits).toEqual({ signal: 'unknown', limit_up: null, limit_down: null })
  })

  const counts = (up: number, down: number): MarketStock[] => [
    ...many(up, { close: 11 }),
    ...many(down, { close: 9 }),
    ...moves(1, 1),
  ]

  it.each([
    [40, 20, 'positive'],
    [80, 29, 'positive'],
    [39, 0, 'neutral'],
    [40, 21, 'neutral'], // 40 < 2 x 21
    [0, 0, 'neutral'],
    [5, 6, 'negative'], // more down than up
    [80, 30, 'negative'], // 30 down is negative even though the positive rule also holds
  ] as const)('%i up / %i down -> %s', (up, down, signal) => {
    expect(computeMarket(input({ stocks: counts(up, down) })).limits).toEqual({
      signal,
      limit_up: up,
      limit_down: down,
    })
  })
})

describe('turnover', () => {
  const withBreadth = (up: number, down: number, last: number) =>
    computeMarket(input({ stocks: moves(up, down), amountHistory: history(last) })).turnover

  it.each([
    [1.1e12, 50, 50, 'positive', 1.1],
    [1.1e12, 45, 55, 'neutral', 1.1], // heavy, up_ratio 0.45: neither
    [1.1e12, 39, 61, 'negative', 1.1], // heavy volume on a down day
    [1.0996e12, 50, 50, 'positive', 1.1], // reported ratio 1.100
    [1.099e12, 50, 50, 'neutral', 1.099],
    [0.801e12, 50, 50, 'neutral', 0.801],
    [0.8e12, 70, 30, 'negative', 0.8],
    [1e12, 30, 70, 'neutral', 1],
  ] as const)('amount %d with %i up / %i down -> %s (ratio %f)', (last, up, down, signal, ratio) => {
    expect(withBreadth(up, down, last)).toEqual({ signal, amount: last, ma20: 1e12, ratio })
  })

  it('uses the last 20 days only', () => {
    const t = computeMarket(input({ stocks: moves(1, 1), amountHistory: [5e12, 5e12, ...history(1.2e12)] })).turnover
    expect(t).toEqual({ signal: 'positive', amount: 1.2e12, ma20: 1e12, ratio: 1.2 })
  })

  it('is unknown with fewer than 20 days, a non-finite amount or a zero average', () => {
    const short = computeMarket(input({ stocks: moves(1, 1), amountHistory: history(1e12).slice(1) })).turnover
    expect(short).toEqual({ signal: 'unknown', amount: null, ma20: null, ratio: null })
    const nan = computeMarket(input({ stocks: moves(1, 1), amountHistory: [...history(1e12).slice(1), Number.NaN] }))
    expect(nan.turnover.signal).toBe('unknown')
    const zero = computeMarket(input({ stocks: moves(1, 1), amountHistory: Array<number>(20).fill(0) }))
    expect(zero.turnover).toEqual({ signal: 'unknown', amount: 0, ma20: 0, ratio: null })
  })

  it('is unknown when breadth is unknown (up_ratio is an input), but still reports the amounts', () => {
    expect(computeMarket(input({ stocks: [], amountHistory: history(0.5e12) })).turnover).toEqual({
      signal: 'unknown',
      amount: 0.5e12,
      ma20: 1e12,
      ratio: 0.5,
    })
  })
})

describe('trend', () => {
  const trendOf = (above: number, below: number, index: MarketInput['index'] = INDEX) =>
    computeMarket(
      input({ stocks: [...many(above, { above_ma20: true }), ...many(below, { above_ma20: false })], index }),
    ).trend

  it.each([
    [INDEX, 6, 4, 'positive', 0.6],
    [INDEX, 59, 41, 'neutral', 0.59],
    [INDEX, 2, 8, 'neutral', 0.2], // index above MA20, breadth weak
    [{ ...INDEX, close: 3800 }, 39, 61, 'negative', 0.39],
    [{ ...INDEX, close: 3800 }, 4, 6, 'neutral', 0.4],
    [{ ...INDEX, close: 3800 }, 9, 1, 'neutral', 0.9],
    [{ ...INDEX, close: 3900.1 }, 1, 9, 'neutral', 0.1], // close equal to MA20
  ] as const)('index %o, %i above / %i below -> %s', (index, above, below, signal, pct) => {
    expect(trendOf(above, below, index)).toEqual({
      signal,
      index: '000300.SH',
      close: index.close,
      ma20: 3900.1,
      pct_above_ma20: pct,
    })
  })

  it('leaves out suspended names and names without an MA20', () => {
    const stocks = [
      ...many(3, { above_ma20: true }),
      ...many(2, { above_ma20: false }),
      ...many(5, { above_ma20: false, is_suspended: true }),
      ...many(5, { above_ma20: null }),
    ]
    expect(computeMarket(input({ stocks })).trend.pct_above_ma20).toBe(0.6)
  })

  it('is unknown without an index or without any MA20 flag', () => {
    expect(trendOf(6, 4, null)).toEqual({
      signal: 'unknown',
      index: null,
      close: null,
      ma20: null,
      pct_above_ma20: 0.6,
    })
    expect(computeMarket(input({ stocks: many(3, { above_ma20: null }) })).trend).toEqual({
      signal: 'unknown',
      index: '000300.SH',
      close: 3950.2,
      ma20: 3900.1,
      pct_above_ma20: null,
    })
  })
})

describe('computeMarket', () => {
  it('returns exactly the four items of DESIGN §11', () => {
    const stocks = [...moves(6, 4), ...many(40, { close: 11 }), ...many(5, { close: 9 })]
    const market = computeMarket(input({ stocks, amountHistory: history(1.12e12) }))
    expect(Object.keys(market)).toEqual(['breadth', 'limits', 'turnover', 'trend'])
    expect(market).toEqual({
      breadth: { signal: 'positive', up: 46, down: 9, flat: 0, up_ratio: 0.836 },
      limits: { signal: 'positive', limit_up: 40, limit_down: 5 },
      turnover: { signal: 'positive', amount: 1.12e12, ma20: 1e12, ratio: 1.12 },
      trend: { signal: 'positive', index: '000300.SH', close: 3950.2, ma20: 3900.1, pct_above_ma20: 1 },
    })
  })
})

function market(
  signals: Partial<Record<keyof Market, Signal>>,
  values: { up_ratio?: number | null; limit_up?: number | null; limit_down?: number | null } = {},
): Market {
  return {
    breadth: { signal: signals.breadth ?? 'neutral', up: 5, down: 5, flat: 0, up_ratio: values.up_ratio ?? 0.5 },
    limits: {
      signal: signals.limits ?? 'neutral',
      limit_up: values.limit_up === undefined ? 10 : values.limit_up,
      limit_down: values.limit_down === undefined ? 5 : values.limit_down,
    },
    turnover: { signal: signals.turnover ?? 'neutral', amount: 1e12, ma20: 1e12, ratio: 1 },
    trend: { signal: signals.trend ?? 'neutral', index: '000300.SH', close: 1, ma20: 1, pct_above_ma20: 0.5 },
  }
}

describe('computeRegime: status', () => {
  it.each([
    [{ breadth: 'unknown', trend: 'unknown' }, 'unknown'],
    [{ breadth: 'positive', limits: 'positive', turnover: 'unknown', trend: 'unknown' }, 'unknown'],
    [{ breadth: 'positive', limits: 'positive', turnover: 'positive', trend: 'positive' }, 'strong'],
    [{ breadth: 'positive', limits: 'positive', turnover: 'positive' }, 'strong'],
    [{ breadth: 'positive', limits: 'positive', turnover: 'positive', trend: 'unknown' }, 'strong'],
    [{ breadth: 'positive', limits: 'positive', turnover: 'positive', trend: 'negative' }, 'neutral'],
    [{ breadth: 'positive', limits: 'positive' }, 'neutral'],
    [{}, 'neutral'],
    [{ limits: 'negative', turnover: 'negative', trend: 'negative' }, 'weak'],
    [{ breadth: 'negative', limits: 'negative', turnover: 'negative', trend: 'unknown' }, 'weak'],
    [{ breadth: 'negative', trend: 'negative' }, 'weak'],
    [{ breadth: 'negative', trend: 'negative', limits: 'positive', turnover: 'positive' }, 'weak'],
    [{ limits: 'negative', turnover: 'negative' }, 'neutral'],
    [{ breadth: 'negative', turnover: 'negative' }, 'neutral'],
  ] as const)('%o -> %s', (signals, status) => {
    expect(computeRegime(market(signals), DATE).status).toBe(status)
  })
})

describe('computeRegime: weak_day', () => {
  it.each([
    ['status weak', market({ breadth: 'negative', trend: 'negative' }), true],
    ['nothing weak', market({}), false],
    ['up_ratio 0.24', market({}, { up_ratio: 0.24 }), true],
    ['up_ratio 0.25', market({}, { up_ratio: 0.25 }), false],
    ['20 down, 10 up', market({}, { limit_down: 20, limit_up: 10 }), true],
    ['19 down, 0 up', market({}, { limit_down: 19, limit_up: 0 }), false],
    ['20 down, 21 up', market({}, { limit_down: 20, limit_up: 21 }), false],
    ['25 down, 25 up', market({}, { limit_down: 25, limit_up: 25 }), true],
    ['status unknown, nothing else weak', market({ breadth: 'unknown', trend: 'unknown' }), null],
    ['status unknown, up_ratio 0.2', market({ breadth: 'unknown', trend: 'unknown' }, { up_ratio: 0.2 }), true],
    ['limits unknown, nothing else weak', market({ limits: 'unknown' }, { limit_up: null, limit_down: null }), null],
    ['breadth unknown, 30 down', market({ breadth: 'unknown' }, { up_ratio: null, limit_down: 30 }), true],
  ] as const)('%s -> %s', (_name, m, weakDay) => {
    expect(computeRegime(m, DATE).weak_day).toBe(weakDay)
  })
})

describe('computeRegime: source', () => {
  it('says how many items are positive and negative', () => {
    expect(computeRegime(market({ breadth: 'positive', limits: 'positive' }), DATE)).toEqual({
      status: 'neutral',
      weak_day: false,
      source: 'snapshot 2026-11-20: 2 items positive, 0 negative',
    })
    expect(computeRegime(market({ breadth: 'positive', trend: 'unknown', turnover: 'negative' }), DATE).source).toBe(
      'snapshot 2026-11-20: 1 item positive, 1 negative, 1 unknown',
    )
  })

  it('regimeWithoutSnapshot is unknown with a null weak_day', () => {
    expect(regimeWithoutSnapshot(DATE)).toEqual({
      status: REGIME_UNKNOWN,
      weak_day: null,
      source: 'snapshot 2026-11-20: no market environment section',
    })
  })
})
