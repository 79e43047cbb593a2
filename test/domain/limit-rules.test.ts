import { describe, expect, it } from 'vitest'
import type { Board } from '../../src/domain/codes.js'
import { LIMIT_RULES, limitRatio, narrowestLimitRatio } from '../../src/domain/limit-rules.js'

const LONG = Number.POSITIVE_INFINITY

describe('limitRatio on a date', () => {
  it.each([
    // board, st, date, listed days, ratio
    ['main', false, '2019-01-02', LONG, 0.1],
    ['main', true, '2019-01-02', LONG, 0.05],
    ['main', true, '2026-07-03', LONG, 0.05],
    ['main', true, '2026-07-06', LONG, 0.1],
    ['main', false, '2026-07-06', LONG, 0.1],
    ['b_share', true, '2025-01-02', LONG, 0.05],
    ['b_share', true, '2026-07-06', LONG, 0.1],
    ['star', false, '2019-07-22', LONG, 0.2],
    ['star', true, '2024-01-02', LONG, 0.2],
    ['chinext', false, '2020-08-21', LONG, 0.1],
    ['chinext', true, '2020-08-21', LONG, 0.05],
    ['chinext', false, '2020-08-24', LONG, 0.2],
    ['chinext', true, '2020-08-24', LONG, 0.2],
    ['bse', false, '2021-11-15', LONG, 0.3],
    ['bse', true, '2025-03-03', LONG, 0.3],
  ] as const)('%s st=%s on %s (listed %s days) moves %d', (board, st, date, listed, ratio) => {
    expect(limitRatio(board, st, date, listed)).toBe(ratio)
  })

  it.each([
    // new listings: the days without a symmetric limit
    ['main', '2023-04-07', 1, null],
    ['main', '2023-04-07', 2, 0.1],
    ['main', '2023-04-10', 5, null],
    ['main', '2023-04-10', 6, 0.1],
    ['star', '2019-07-22', 5, null],
    ['star', '2019-07-29', 6, 0.2],
    ['chinext', '2020-08-21', 1, null],
    ['chinext', '2020-08-21', 2, 0.1],
    ['chinext', '2020-08-24', 5, null],
    ['chinext', '2020-08-24', 6, 0.2],
    ['bse', '2021-11-15', 1, null],
    ['bse', '2021-11-16', 2, 0.3],
  ] as const)('%s on %s, listed day %d: %s', (board, date, listed, ratio) => {
    expect(limitRatio(board, false, date, listed)).toBe(ratio)
  })

  it('every board lists its rules oldest first, each with a source', () => {
    for (const [board, rules] of Object.entries(LIMIT_RULES)) {
      const dates = rules.map((r) => r.from)
      expect([...dates].sort(), board).toEqual(dates)
      for (const r of rules) expect(r.source.length, `${board} ${r.from}`).toBeGreaterThan(10)
    }
  })

  it.each([
    ['main', true, '2024-01-01', '2026-12-31', 0.05],
    ['main', true, '2026-07-06', '2026-12-31', 0.1],
    ['chinext', false, '2024-01-01', '2026-12-31', 0.2],
    ['chinext', false, '2020-01-02', '2026-12-31', 0.1],
  ] as const)('narrowest %s st=%s from %s to %s: %d', (board: Board, st, from, to, ratio) => {
    expect(narrowestLimitRatio(board, st, from, to)).toBe(ratio)
  })
})
