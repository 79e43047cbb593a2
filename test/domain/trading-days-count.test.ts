import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { tradingDaysBetween } from '../../src/domain/trading-days.js'

const day = fc.integer({ min: 0, max: 60 }).map((n) => new Date(Date.UTC(2025, 0, 1 + n)).toISOString().slice(0, 10))

describe('trading days between two dates', () => {
  it('counts what a filter over the calendar counts, for dates on, between and outside its days', () => {
    fc.assert(
      fc.property(fc.uniqueArray(day, { maxLength: 40 }), day, fc.option(day, { nil: undefined }), (days, from, to) => {
        const calendar = [...days].sort()
        const filtered = calendar.filter((d) => d >= from && (to === undefined || d <= to)).length
        expect(tradingDaysBetween(calendar, from, to)).toBe(filtered)
      }),
      { numRuns: 2000 },
    )
  })
})
