import { describe, expect, it } from 'vitest'
import { mainBookDrawdown, ROLLING_IC_DAYS, rollingRankIc, skillOf } from '../../src/domain/skill.js'
import type { PortfolioDay, TrackRecord } from '../../src/domain/track-record.js'

const icDays = (values: (number | null)[]): Pick<TrackRecord, 'ic'> =>
  ({ ic: { daily: values.map((score, i) => ({ date: `d${i}`, score, components: {} })) } }) as unknown as Pick<
    TrackRecord,
    'ic'
  >

const book = (values: number[]): Pick<TrackRecord, 'portfolio'> =>
  ({ portfolio: { days: values.map((cum_main) => ({ cum_main }) as PortfolioDay) } }) as unknown as Pick<
    TrackRecord,
    'portfolio'
  >

describe('the skill figures behind the skill alerts', () => {
  it('averages the last 20 daily rank ICs, skipping days without one', () => {
    const older = Array.from({ length: 30 }, () => 0.5)
    const recent = Array.from({ length: ROLLING_IC_DAYS }, (_, i) => (i % 2 === 0 ? -0.1 : 0.02))
    expect(rollingRankIc(icDays([...older, ...recent]))).toBeCloseTo(-0.04, 12)
    expect(rollingRankIc(icDays([0.1, null, 0.3]))).toBeCloseTo(0.2, 12)
    expect(rollingRankIc(icDays([]))).toBeNaN()
  })

  it("measures the main book's drawdown from its peak (the start counts as 1)", () => {
    expect(mainBookDrawdown(book([1.1, 1.3, 1.04]))).toBeCloseTo(0.2, 12)
    expect(mainBookDrawdown(book([0.9, 0.8]))).toBeCloseTo(0.2, 12)
    expect(mainBookDrawdown(book([1.1, 1.2]))).toBe(0)
    expect(mainBookDrawdown(book([]))).toBeNaN()
  })

  it('gives both from one track record', () => {
    const skill = skillOf({ ...icDays([0.05]), ...book([1.2, 0.9]) })
    expect(skill.rollingRankIc).toBe(0.05)
    expect(skill.mainDrawdown).toBeCloseTo(0.25, 12)
  })
})
