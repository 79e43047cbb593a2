import { describe, expect, it } from 'vitest'
import { legReturn, type UniverseName, universeDay } from '../../src/domain/book-universe.js'

const name = (code: string, o: Partial<UniverseName> = {}): UniverseName => ({
  code,
  amountMa20: 100e6,
  ret20: 0,
  overnight: 0,
  intraday: 0,
  openAtLimitUp: false,
  ...o,
})

describe('legReturn: the universe trades as the book does', () => {
  it('earns the overnight gap of every name held, and the day of the names it can buy at the open', () => {
    const names = [
      name('A', { overnight: 0.02, intraday: 0.01 }),
      // opens at its limit up: held overnight (its gap counts), not bought at the open (its day does not)
      name('B', { overnight: 0.1, intraday: 0.05, openAtLimitUp: true }),
      // no bar on D: held at T's close, earning nothing
      name('C', { overnight: null, intraday: null }),
    ]
    const overnight = (0.02 + 0.1 + 0) / 3
    expect(legReturn(names)).toBeCloseTo((1 + overnight) * (1 + 0.01) - 1, 12)
  })

  it('is null when no name traded on D', () => {
    expect(legReturn([name('C', { overnight: null, intraday: null })])).toBeNull()
  })
})

describe('universeDay', () => {
  // six names: sizes 1..6 (× 10 M), 20-day returns falling with size; each name's day is its intraday only
  const names = [1, 2, 3, 4, 5, 6].map((k) =>
    name(`N${k}`, { amountMa20: k * 10e6, ret20: -k / 100, intraday: k / 1000, overnight: 0 }),
  )

  it('builds low-minus-high size and losers-minus-winners factors from terciles of the same universe', () => {
    const day = universeDay(names, [])
    expect(day.names).toBe(6)
    expect(day.ret).toBeCloseTo(3.5 / 1000, 12)
    // size terciles: {1,2} − {5,6} = 1.5‰ − 5.5‰; return terciles: losers are the big ones {5,6} − winners {1,2}
    expect(day.sizeFactor).toBeCloseTo(-4 / 1000, 12)
    expect(day.reversalFactor).toBeCloseTo(4 / 1000, 12)
    expect(day.matchedRet).toBeNull()
  })

  it("matches each target name with its traded-value decile's return, ignoring names outside the universe", () => {
    // with six names the ten deciles hold one name each where they are not empty: a name's decile is itself
    const day = universeDay(names, ['N1', 'N6', 'N6', 'ZZ'])
    expect(day.matchedRet).toBeCloseTo((1 / 1000 + 6 / 1000) / 2, 12)
  })
})
