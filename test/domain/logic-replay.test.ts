import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { computedNote, NO_STATE, replayFrom, stateFields, type TierDay } from '../../src/domain/logic-replay.js'
import { type LogicMemory, replayLogicState, stepLogicState } from '../../src/domain/logic-state.js'
import { stepAll } from '../../src/domain/logic-tags.js'
import { tierRow } from '../support/tier-rows.js'

const dates = Array.from({ length: 30 }, (_, i) => `2026-03-${String(i + 1).padStart(2, '0')}`)

const tierOf = (score: number): TierDay['tier'] => (score >= 70 ? 'main' : score >= 55 ? 'observe' : 'reject')
const day = (date: string, score: number, invalidated = false): TierDay => ({
  trade_date: date,
  score,
  score_pct: score,
  tier: tierOf(score),
  invalidated,
  invalidation: null,
})

describe('replayFrom', () => {
  it('from scratch: the code starts on its first row; missing dates after it are absent days', () => {
    const rows = new Map([dates[2]!, dates[3]!, dates[5]!].map((d) => [d, day(d, 80)]))
    const replayed = replayFrom(undefined, dates.slice(0, 7), rows)
    const expected = replayLogicState([
      { date: dates[2]!, score: 80, pct: 80, tier: 'main', invalidated: false, invalidation: null },
      { date: dates[3]!, score: 80, pct: 80, tier: 'main', invalidated: false, invalidation: null },
      { date: dates[4]!, score: null, tier: null },
      { date: dates[5]!, score: 80, pct: 80, tier: 'main', invalidated: false, invalidation: null },
      { date: dates[6]!, score: null, tier: null },
    ])
    expect(replayed.memory).toEqual(expected)
    expect(replayed.memory).toMatchObject({ absent_days: 1, score: null })
    expect(replayed.steps).toBe(7)
  })

  it('from a seed: only dates after the seed are stepped', () => {
    const seed: LogicMemory = {
      state: 'confirmed',
      score: 75,
      score_ema: 74,
      score_pct: 90,
      pct_ema: 88,
      state_since: dates[0]!,
      days_in_state: 3,
      state_rule: 'enter',
      above_days: 3,
      absent_days: 0,
    }
    const rows = new Map([dates[1]!, dates[2]!, dates[3]!].map((d) => [d, day(d, 30)]))
    const replayed = replayFrom({ date: dates[2]!, memory: seed }, dates.slice(0, 4), rows)
    expect(replayed.steps).toBe(1)
    expect(replayed.memory).toEqual(
      stepLogicState(seed, {
        date: dates[3]!,
        score: 30,
        pct: 30,
        tier: 'reject',
        invalidated: false,
        invalidation: null,
      }),
    )
  })

  it('no rows and no seed: no memory', () => {
    expect(replayFrom(undefined, dates, new Map())).toEqual({ memory: undefined, steps: dates.length })
  })

  it('property: stepping from the memory stored at any day equals replaying the whole history', () => {
    const history = fc.array(fc.option(fc.integer({ min: 0, max: 100 }), { nil: null, freq: 4 }), {
      minLength: 1,
      maxLength: 30,
    })
    fc.assert(
      fc.property(history, fc.nat(), (scores, cut) => {
        const used = dates.slice(0, scores.length)
        const rows = new Map<string, TierDay>()
        scores.forEach((s, i) => {
          if (s !== null) rows.set(used[i]!, day(used[i]!, s))
        })
        const whole = replayFrom(undefined, used, rows).memory
        const at = cut % scores.length
        const prefix = replayFrom(undefined, used.slice(0, at + 1), rows).memory
        const seed = prefix ? { date: used[at]!, memory: prefix } : undefined
        expect(replayFrom(seed, used, rows).memory).toEqual(whole)
      }),
    )
  })
})

describe('stateFields and computedNote', () => {
  const memory: LogicMemory = {
    state: 'weakening',
    score: 58,
    score_ema: 63.456789,
    score_pct: 55.5,
    pct_ema: 58.123,
    state_since: '2026-11-18',
    days_in_state: 3,
    state_rule: 'weakening: score percentile EMA 58 below exit 70',
    above_days: 0,
    absent_days: 0,
  }

  it('names the fields, the EMAs to 2 decimals; null fields without a memory', () => {
    expect(stateFields(memory)).toEqual({
      logic_state: 'weakening',
      score: 58,
      score_ema: 63.46,
      score_pct: 55.5,
      pct_ema: 58.12,
      state_since: '2026-11-18',
      days_in_state: 3,
      state_rule: 'weakening: score percentile EMA 58 below exit 70',
    })
    expect(stateFields(undefined)).toBe(NO_STATE)
    expect(Object.values(NO_STATE).every((v) => v === null)).toBe(true)
  })

  it('says how the entry was computed, or that there is no data', () => {
    expect(computedNote('600519.SH', '2026-11-20', undefined, { memory: undefined, steps: 4 })).toBe(
      'no tier scores and no stored state for 600519.SH up to 2026-11-20: no logic state',
    )
    expect(computedNote('600519.SH', '2026-11-20', { date: '2026-11-19', memory }, { memory, steps: 1 })).toBe(
      'no stored row for 2026-11-20: stepped from the stored state of 2026-11-19 over 1 tier date',
    )
    expect(computedNote('600519.SH', '2026-11-20', undefined, { memory, steps: 12 })).toBe(
      'no stored state: replayed over 12 tier dates of tier history',
    )
  })
})

describe("stepAll (the plan job): seeded from each code's latest stored state, whatever its date", () => {
  const confirmed: LogicMemory = {
    state: 'confirmed',
    score: 60,
    score_ema: 60,
    score_pct: 92,
    pct_ema: 91,
    state_since: dates[0]!,
    days_in_state: 4,
    state_rule: 'confirmed: score percentile EMA 91 >= 80 for 2 days',
    above_days: 4,
    absent_days: 0,
  }
  const today = dates[3]!
  const row = tierRow({ code: '600001.SH', rank: 1, score: 61, score_pct: 93 })

  it('a one-day gap (no stored row on the previous tier date) does not reset the state', () => {
    // stored on dates[1]; the plan job skipped dates[2] (a tier date on which the code had a row)
    const seeds = new Map([['600001.SH', { date: dates[1]!, memory: confirmed }]])
    const history = new Map([['600001.SH', new Map([[dates[2]!, day(dates[2]!, 90)]])]])
    const next = stepAll(today, [row], seeds, [dates[2]!], history).get('600001.SH')!
    expect(next).toMatchObject({ state: 'confirmed', state_since: dates[0]!, days_in_state: 6, absent_days: 0 })
    expect(next).toEqual(
      replayLogicState(
        [
          { date: dates[2]!, score: 90, pct: 90, tier: 'main', invalidated: false, invalidation: null },
          { date: today, score: 61, pct: 93, tier: row.tier, invalidated: false, invalidation: null },
        ],
        confirmed,
      ),
    )
  })

  it('a suspension (the code absent from a tier date) is counted as an absent day, not a reset', () => {
    const seeds = new Map([['600001.SH', { date: dates[1]!, memory: confirmed }]])
    const next = stepAll(today, [row], seeds, [dates[2]!], new Map()).get('600001.SH')!
    expect(next).toMatchObject({ state: 'confirmed', state_since: dates[0]!, days_in_state: 6 })
    expect(next.pct_ema).toBeCloseTo((93 + 2 * 91) / 3, 10)
    expect(next.absent_days).toBe(0)
  })

  it('a code without any stored state starts forming today', () => {
    expect(stepAll(today, [row], new Map()).get('600001.SH')).toMatchObject({
      state: 'forming',
      state_since: today,
      days_in_state: 1,
    })
  })
})
