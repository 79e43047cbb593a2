import { describe, expect, it } from 'vitest'
import { blendedHeat, boardHeat } from '../../src/domain/board-heat.js'
import { themeHeat } from '../../src/domain/theme-heat.js'

const DATES = ['2024-03-01', '2024-03-04', '2024-03-05', '2024-03-06', '2024-03-07', '2024-03-08']
const series = (close: number[]) => ({ dates: DATES, close })

describe('board heat', () => {
  it('weighs the five-day return, the breadth and the limit-ups of the day', () => {
    const flat = series([100, 100, 100, 100, 100, 100])
    expect(boardHeat({ series: flat, breadth: 0.5, limitUps: 0 }, '2024-03-08')).toBe(35)
    // +10 % over five days fills the return part; three limit-ups fill theirs
    const up = series([100, 102, 104, 106, 108, 110])
    expect(boardHeat({ series: up, breadth: 1, limitUps: 3 }, '2024-03-08')).toBe(100)
    expect(boardHeat({ series: up, breadth: 1, limitUps: 9 }, '2024-03-08')).toBe(100)
    const down = series([100, 98, 96, 94, 92, 90])
    expect(boardHeat({ series: down, breadth: 0, limitUps: 0 }, '2024-03-08')).toBe(0)
    expect(boardHeat({ series: down, breadth: null, limitUps: 1 }, '2024-03-08')).toBe(25)
  })

  it('has no heat for a board without a bar on the day', () => {
    expect(boardHeat({ series: series([100, 100, 100, 100, 100, 100]), breadth: 1, limitUps: 0 }, '2024-03-11')).toBe(
      null,
    )
  })

  it('blends curated events in where they exist, and keeps the old heat for a theme that is no board', () => {
    expect(blendedHeat(undefined, 62, 0.4)).toBe(62)
    expect(blendedHeat(80, 50, 0.4)).toBe(71)
    expect(blendedHeat(80, null, 0.4)).toBe(themeHeat(80, 0.4))
    expect(blendedHeat(undefined, null, 0.4)).toBe(themeHeat(0, 0.4))
  })
})
