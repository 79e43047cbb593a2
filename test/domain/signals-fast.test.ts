import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { normaliseSignals, SIGNAL_NAMES, stockSignals } from '../../src/domain/signals.js'
import { referenceBarSignals, referenceNormaliseSignals } from '../support/signals-reference.js'

const NO_FACTS = { totalMv: null, peTtm: null, pb: null, roe: null, cashConversion: null, upside: null, heat: null }

const barsArb = fc.integer({ min: 0, max: 135 }).chain((n) =>
  fc.record({
    close: fc.array(
      fc.oneof({ weight: 30, arbitrary: fc.double({ min: 0.5, max: 200, noNaN: true }) }, fc.constant(0)),
      {
        minLength: n,
        maxLength: n,
      },
    ),
    amount: fc.array(fc.double({ min: 0, max: 1e9, noNaN: true }), { minLength: n, maxLength: n }),
    volume: fc.array(fc.double({ min: 0, max: 1e8, noNaN: true }), { minLength: n, maxLength: n }),
    suspended: fc.array(
      fc.integer({ min: 0, max: 9 }).map((x) => x === 0),
      { minLength: n, maxLength: n },
    ),
    turnover: fc.array(fc.option(fc.double({ min: 0, max: 30, noNaN: true }), { freq: 5 }), {
      minLength: n,
      maxLength: n,
    }),
    indexGaps: fc.array(
      fc.integer({ min: 0, max: 9 }).map((x) => x === 0),
      { minLength: n, maxLength: n },
    ),
  }),
)

describe('the allocation-free signals equal the array-per-window computation', () => {
  it('bit for bit, from JS arrays and from typed views alike (suspensions, zero closes, unknown turnover)', () => {
    fc.assert(
      fc.property(barsArb, (b) => {
        const n = b.close.length
        const dates = Array.from(
          { length: n },
          (_, i) => `2025-${String(1 + Math.floor(i / 28)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}`,
        )
        const index = new Map(
          dates.flatMap((d, i) => (b.indexGaps[i] ? [] : [[d, ((i * 37) % 11) / 500 - 0.01] as const])),
        )
        const plain = {
          dates,
          close: b.close,
          amount: b.amount,
          volume: b.volume,
          suspended: b.suspended,
          turnover: b.turnover,
        }
        const typed = {
          dates,
          close: Float64Array.from(b.close),
          amount: Float64Array.from(b.amount),
          volume: Float64Array.from(b.volume),
          suspended: Uint8Array.from(b.suspended, (s) => (s ? 1 : 0)),
          turnover: Float64Array.from(b.turnover, (t) => t ?? Number.NaN),
        }
        const expected = referenceBarSignals(plain, index)
        for (const bars of [plain, typed]) {
          const got = stockSignals(bars, NO_FACTS, index)
          for (const [name, value] of Object.entries(expected))
            expect([name, got[name as keyof typeof got]]).toEqual([name, value])
        }
      }),
      { numRuns: 400 },
    )
  })
})

describe('the typed-column cross-sectional ranks equal the map-per-signal computation', () => {
  // few distinct values so ties are common; nulls, NaN and infinities are not ranked; size present for a share
  const value = fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: -3, max: 3 }).map((x) => x / 2) },
    { weight: 6, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
    fc.constant(null),
    fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -0),
  )
  const row = fc.record(
    Object.fromEntries([...SIGNAL_NAMES, 'size_proxy'].map((name) => [name, value])) as Record<
      string,
      fc.Arbitrary<number | null>
    >,
  )
  it('same values, same keys in the same order, for every code', () => {
    fc.assert(
      fc.property(fc.array(row, { maxLength: 40 }), (rows) => {
        const raw = new Map(rows.map((r, i) => [`${String(i).padStart(6, '0')}.SZ`, r])) as unknown as Parameters<
          typeof normaliseSignals
        >[0]
        const fast = normaliseSignals(raw)
        const reference = referenceNormaliseSignals(raw)
        expect([...fast.keys()]).toEqual([...reference.keys()])
        for (const [code, values] of reference) {
          expect(Object.keys(fast.get(code)!)).toEqual(Object.keys(values))
          for (const [name, v] of Object.entries(values))
            expect(Object.is((fast.get(code) as Record<string, number>)[name], v)).toBe(true)
        }
      }),
      { numRuns: 400 },
    )
  })
})
