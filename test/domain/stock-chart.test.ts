import { describe, expect, it } from 'vitest'
import { forwardAdjustedCandles, type StoredBar } from '../../src/domain/stock-chart.js'

const bar = (i: number, close: number, adj = 1, suspended = false): StoredBar => ({
  trade_date: `2026-01-${String(i + 1).padStart(2, '0')}`,
  open: close,
  high: close + 1,
  low: close - 1,
  close,
  volume: suspended ? 0 : 100,
  amount: suspended ? 0 : 1000,
  adj_factor: adj,
  is_suspended: suspended,
})

describe('forward-adjusted candles', () => {
  it('scales earlier prices to the last factor, so the last close is the quoted one', () => {
    // a 2-for-1 split on day 2: the quote halves, the factor doubles
    const candles = forwardAdjustedCandles([bar(0, 20, 1), bar(1, 10, 2)], 10)
    expect(candles.map((c) => c.close)).toEqual([10, 10])
    expect(candles[0]).toMatchObject({ open: 10, high: 10.5, low: 9.5 })
  })

  it('leaves suspended days out and keeps the last `days` traded bars, averages over the history before', () => {
    const bars = Array.from({ length: 30 }, (_, i) => bar(i, i + 1, 1, i === 25))
    const candles = forwardAdjustedCandles(bars, 5)
    expect(candles.map((c) => c.date)).toEqual(
      bars
        .slice(-6)
        .filter((b) => !b.is_suspended)
        .map((b) => b.trade_date),
    )
    const closes = bars.filter((b) => !b.is_suspended).map((b) => b.close)
    const last20 = closes.slice(-20)
    expect(candles.at(-1)!.ma20).toBeCloseTo(last20.reduce((a, b) => a + b, 0) / 20, 4)
    expect(candles.at(-1)!.ma60).toBeNull()
  })
})
