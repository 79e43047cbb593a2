import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MIN_IC_STOCKS, outcomeColumns, signalIcs } from '../../src/domain/signal-ic.js'
import { SIGNAL_NAMES } from '../../src/domain/signals.js'
import { spearman } from '../../src/domain/track-stats.js'

describe('signal ICs', () => {
  it("are each signal's rank correlation with the return over the rows that have it, bit for bit", () => {
    // some signals on every row (the returns' ranks are shared), some on a part of them, some on too few
    const value = fc.integer({ min: -4, max: 4 }).map((x) => x / 4)
    const row = fc.record({
      signals: fc.record({
        momentum_6m_skip_1m: value,
        trend: value,
        volatility: fc.option(value, { nil: undefined }),
        value_ep: fc.option(value, { nil: undefined, freq: 20 }),
      }),
      // -0 and 0 tie, as they do in a sort of the returns
      ret: fc.oneof(
        fc.integer({ min: -50, max: 50 }).map((x) => x / 1000),
        fc.constant(-0),
      ),
    })
    fc.assert(
      fc.property(fc.array(row, { minLength: MIN_IC_STOCKS, maxLength: 90 }), (rows) => {
        const ics = signalIcs(outcomeColumns(rows))
        for (const name of SIGNAL_NAMES) {
          const having = rows.filter((r) => (r.signals as Record<string, number | undefined>)[name] !== undefined)
          const expected =
            having.length < MIN_IC_STOCKS
              ? null
              : spearman(
                  having.map((r) => (r.signals as Record<string, number>)[name]!),
                  having.map((r) => r.ret),
                )
          const found = ics[name]
          if (expected === null || !Number.isFinite(expected)) expect(found).toBeUndefined()
          else expect(found).toEqual({ ic: expected, n: having.length })
        }
      }),
      { numRuns: 1000 },
    )
  })
})
