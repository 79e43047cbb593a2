import { describe, expect, it } from 'vitest'
import { screenReason } from '../../src/domain/screening.js'
import { tierRow } from '../support/tier-rows.js'

describe('screening', () => {
  it.each([
    ['900901.SH', 'b_share'],
    ['200002.SZ', 'b_share'],
    ['600519.SH', undefined],
    ['302132.SZ', undefined],
  ] as const)('%s: %s', (code, reason) => {
    const row = tierRow({ code, rank: 1, listed_days: 500, amount_ma20: 1e9, is_st: false, is_suspended: false })
    expect(screenReason(row, new Set())).toBe(reason)
  })

  it('names held before the B-share rule, and the B-share rule before the liquidity rule', () => {
    const row = tierRow({ code: '900901.SH', rank: 1, listed_days: 500, amount_ma20: 1 })
    expect(screenReason(row, new Set(['900901.SH']))).toBe('held')
    expect(screenReason(row, new Set())).toBe('b_share')
  })
})
