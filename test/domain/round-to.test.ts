import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { roundTo } from '../../src/domain/stats.js'

/** roundTo as it was written first: every value through a 12-significant-digit string. */
function roundByString(value: number, digits: number): number {
  const factor = 10 ** digits
  const scaled = Number((Math.abs(value) * factor).toPrecision(12))
  const rounded = (Math.sign(value) * Math.round(scaled)) / factor
  return rounded === 0 ? 0 : rounded
}

/** Values at and a hair either side of a rounding boundary (k + 0.5 units of the last digit), at many scales. */
const nearBoundary = fc
  .tuple(
    fc.integer({ min: -1_000_000, max: 1_000_000 }),
    fc.integer({ min: 0, max: 4 }),
    fc.constantFrom(0, 1e-15, -1e-15, 1e-13, -1e-13, 4e-12, -4e-12, 1e-11, -1e-11, 1e-9, -1e-9),
    fc.integer({ min: -6, max: 12 }),
  )
  .map(([k, digits, nudge, scale]) => ({ value: ((k + 0.5) / 10 ** digits) * (1 + nudge) * 10 ** scale, digits }))

describe('roundTo', () => {
  it('equals the string round trip bit for bit, boundaries, huge and non-finite values included (property)', () => {
    const anyValue = fc.record({
      value: fc.oneof(
        fc.double(),
        fc.double({ min: -1e6, max: 1e6 }),
        fc.constantFrom(0.125, 1.005, 2.675, -0.5, 1e21),
      ),
      digits: fc.integer({ min: 0, max: 6 }),
    })
    fc.assert(
      fc.property(fc.oneof(anyValue, nearBoundary), ({ value, digits }) => {
        expect(Object.is(roundTo(value, digits), roundByString(value, digits))).toBe(true)
      }),
      { numRuns: 20_000 },
    )
  })

  it('rounds the decimal a person reads, not its binary neighbour', () => {
    expect(roundTo(1.005, 2)).toBe(1.01)
    expect(roundTo(2.675, 2)).toBe(2.68)
    expect(roundTo(-0.0049, 2)).toBe(0)
    expect(Object.is(roundTo(-0.0049, 2), -0)).toBe(false)
  })
})
