import { describe, expect, it } from 'vitest'
import { type SignalBars, stockSignals } from '../../src/domain/signals.js'

const NO_FACTS = { totalMv: null, peTtm: null, pb: null, roe: null, cashConversion: null, upside: null, heat: null }
const NO_INDEX = new Map<string, number>()

/** `n` bars of a flat stock at 10 with 100 M traded a day; `edit` changes what a case needs. */
function bars(n: number, edit: (b: { close: number[]; amount: number[]; intraday: number[] }) => void = () => {}) {
  const b = {
    close: Array.from({ length: n }, () => 10),
    amount: Array.from({ length: n }, () => 100e6),
    intraday: Array.from({ length: n }, () => 1),
  }
  edit(b)
  const series: SignalBars = {
    dates: Array.from({ length: n }, (_, i) => `d${String(i).padStart(3, '0')}`),
    close: b.close,
    amount: b.amount,
    intraday: b.intraday,
    suspended: Array.from({ length: n }, () => false),
  }
  return series
}

const signals = (series: SignalBars) => stockSignals(series, NO_FACTS, NO_INDEX)

describe('lottery and attention signals', () => {
  it('max_return is the largest of the last 20 daily returns; a jump 21 days back is out of the window', () => {
    const recent = bars(40, (b) => {
      for (let i = 30; i < 40; i++) b.close[i] = 11 // +10% on day 30, flat after
    })
    expect(signals(recent).max_return).toBeCloseTo(0.1, 12)
    const old = bars(40, (b) => {
      for (let i = 19; i < 40; i++) b.close[i] = 11 // the jump is the return of day 19: 21 returns back
    })
    expect(signals(old).max_return).toBe(0)
  })

  it('intraday_return sums the log of close over open of the last 20 bars, and is missing without opens', () => {
    const series = bars(30, (b) => {
      b.intraday[29] = 1.05
      b.intraday[28] = 0.98
      b.intraday[5] = 2 // outside the 20 bars
    })
    expect(signals(series).intraday_return).toBeCloseTo(Math.log(1.05) + Math.log(0.98), 12)
    const { intraday: _, ...withoutOpens } = series
    expect(signals(withoutOpens).intraday_return).toBeNull()
  })

  it('amount_volatility is the sd over the mean of 20 days of traded value: 0 when steady', () => {
    expect(signals(bars(30)).amount_volatility).toBe(0)
    const alternating = bars(30, (b) => {
      for (let i = 0; i < 30; i++) b.amount[i] = i % 2 === 0 ? 100e6 : 300e6
    })
    // 20 values, half 100 M and half 300 M: mean 200 M, sample sd 100 M x sqrt(20/19)
    expect(signals(alternating).amount_volatility).toBeCloseTo(Math.sqrt(20 / 19) / 2, 12)
  })

  it('price_volume_corr is +1 when traded value rises with the price and -1 when it falls as the price rises', () => {
    const together = bars(30, (b) => {
      for (let i = 0; i < 30; i++) {
        b.close[i] = 10 + i / 10
        b.amount[i] = 100e6 + i * 1e6
      }
    })
    expect(signals(together).price_volume_corr).toBeCloseTo(1, 12)
    const against = bars(30, (b) => {
      for (let i = 0; i < 30; i++) {
        b.close[i] = 10 + i / 10
        b.amount[i] = 200e6 - i * 1e6
      }
    })
    expect(signals(against).price_volume_corr).toBeCloseTo(-1, 12)
    expect(signals(bars(30)).price_volume_corr).toBeNull() // a flat price has no correlation
  })

  it('high_distance is the close over the highest close of the last 120 bars minus 1', () => {
    const fallen = bars(130, (b) => {
      b.close[100] = 16 // inside the 120 bars
      b.close[5] = 40 // outside them
      b.close[129] = 12
    })
    expect(signals(fallen).high_distance).toBeCloseTo(12 / 16 - 1, 12)
    expect(signals(bars(130)).high_distance).toBe(0)
  })

  it('are missing on a history too short to read (fewer than two thirds of the 20 days)', () => {
    const short = signals(bars(12))
    expect(short.max_return).toBeNull()
    expect(short.intraday_return).toBeNull()
    expect(short.amount_volatility).toBeNull()
    expect(short.price_volume_corr).toBeNull()
    expect(short.high_distance).toBeNull()
  })
})
