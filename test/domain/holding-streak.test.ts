import { describe, expect, it } from 'vitest'
import { holdingStreaks, nextStreaks } from '../../src/domain/holding-streak.js'

describe('how long each of yesterday’s main names has been held', () => {
  it('counts the plan days in a row back from the newest list, and stops at the first list without the name', () => {
    const streaks = holdingStreaks([
      ['A', 'B', 'C'],
      ['A', 'B'],
      ['A', 'C'],
      ['A', 'B'],
    ])
    expect(Object.fromEntries(streaks)).toEqual({ A: 4, B: 2, C: 1 })
  })

  it('is empty with no published main', () => {
    expect(holdingStreaks([]).size).toBe(0)
    expect(holdingStreaks([[], ['A']]).size).toBe(0)
  })

  it('walked forward day by day it agrees with the lists read back', () => {
    const days = [['A'], ['A', 'B'], ['B', 'C'], ['A', 'B', 'C'], ['B', 'C']]
    let walked: ReadonlyMap<string, number> = new Map()
    for (const main of days) walked = nextStreaks(walked, main)
    expect(Object.fromEntries(walked)).toEqual(Object.fromEntries(holdingStreaks([...days].reverse())))
    expect(walked.get('B')).toBe(4)
    expect(walked.get('A')).toBeUndefined()
  })
})
