import { describe, expect, it } from 'vitest'
import {
  LOGIC_RULES,
  type LogicDay,
  type LogicMemory,
  type LogicStateName,
  replayLogicState,
  stepLogicState,
} from '../../src/domain/logic-state.js'

const DAY0 = Date.UTC(2026, 0, 1)
/** i-th calendar day from 2026-01-01 (i = 1 is 2026-01-01); the rules count steps, not calendar days. */
const dt = (i: number): string => new Date(DAY0 + (i - 1) * 86_400_000).toISOString().slice(0, 10)

/** A present day whose score percentile is `pct` (the raw score is set apart, to show the bands ignore it). */
const day = (i: number, pct: number | null, extra: Partial<LogicDay> = {}): LogicDay => ({
  date: dt(i),
  score: pct === null ? null : 40,
  pct,
  tier: pct === null ? null : 'observe',
  ...extra,
})

const mem = (state: LogicStateName, over: Partial<LogicMemory> = {}): LogicMemory => ({
  state,
  score: 40,
  score_ema: 40,
  score_pct: over.pct_ema ?? 50,
  pct_ema: 50,
  state_since: '2025-12-01',
  days_in_state: 1,
  state_rule: 'seed',
  above_days: 0,
  absent_days: 0,
  ...over,
})

describe('LOGIC_RULES', () => {
  it('sets the bands on the score percentile (0..100) and is frozen', () => {
    expect(LOGIC_RULES).toMatchObject({ span: 5, enter: 80, exit: 70, break: 30, rearm: 50, confirmDays: 2 })
    expect(Object.isFrozen(LOGIC_RULES)).toBe(true)
  })
})

describe('first appearance', () => {
  it('starts forming, both EMAs seeded with the first values', () => {
    expect(stepLogicState(undefined, day(1, 85))).toEqual({
      state: 'forming',
      score: 40,
      score_ema: 40,
      score_pct: 85,
      pct_ema: 85,
      state_since: dt(1),
      days_in_state: 1,
      state_rule: 'forming: first day tracked',
      above_days: 1,
      absent_days: 0,
    })
  })

  it('starts broken, with the cause, when a hard invalidation is already triggered', () => {
    expect(
      stepLogicState(undefined, day(1, 90, { invalidated: true, invalidation: 'loss in 2026Q3 (EPS -0.12)' })),
    ).toMatchObject({ state: 'broken', state_rule: 'broken: loss in 2026Q3 (EPS -0.12)' })
  })

  it('gives undefined while a code without memory is absent', () => {
    expect(stepLogicState(undefined, day(1, null))).toBeUndefined()
  })
})

describe('EMA of the percentile (alpha = 1/3)', () => {
  it('smooths present days; an absent day holds the percentile EMA and decays the score EMA by 2/3', () => {
    const a = replayLogicState([day(1, 90), day(2, 60)])
    expect(a?.pct_ema).toBeCloseTo(80, 10)
    const b = stepLogicState(a, day(3, null))
    expect(b?.pct_ema).toBeCloseTo(80, 10)
    expect(b?.score_ema).toBeCloseTo(80 / 3, 10)
    expect(b).toMatchObject({ absent_days: 1, score: null, score_pct: null })
  })

  it('bands on the percentile, not on the raw score: a raw 40 in the top fifth confirms', () => {
    const m = replayLogicState([day(1, 90), day(2, 90)])
    expect(m).toMatchObject({ state: 'confirmed', score_ema: 40 })
  })
})

interface Row {
  readonly name: string
  readonly prev: LogicMemory
  readonly today: LogicDay
  readonly state: LogicStateName
  readonly rule: RegExp | string
}

// A day whose percentile equals the previous EMA keeps the EMA where it is, which pins each boundary exactly.
const rows: Row[] = [
  {
    name: 'forming: 2nd day at 80 confirms',
    prev: mem('forming', { pct_ema: 80, above_days: 1 }),
    today: day(9, 80),
    state: 'confirmed',
    rule: 'confirmed: score percentile EMA 80 >= 80 for 2 days',
  },
  {
    name: 'forming: 1st day at 80 stays',
    prev: mem('forming', { pct_ema: 79, above_days: 0 }),
    today: day(9, 82),
    state: 'forming',
    rule: 'seed',
  },
  {
    name: 'forming: below 30 on the 5th day fails',
    prev: mem('forming', { pct_ema: 29, days_in_state: 4 }),
    today: day(9, 29),
    state: 'broken',
    rule: 'broken: score percentile EMA 29 below 30 after 5 days forming',
  },
  {
    name: 'forming: below 30 on the 4th day stays',
    prev: mem('forming', { pct_ema: 29, days_in_state: 3 }),
    today: day(9, 29),
    state: 'forming',
    rule: 'seed',
  },
  {
    name: 'confirmed: below 70 weakens',
    prev: mem('confirmed', { pct_ema: 69 }),
    today: day(9, 69),
    state: 'weakening',
    rule: 'weakening: score percentile EMA 69 below exit 70',
  },
  {
    name: 'confirmed: exactly 70 holds',
    prev: mem('confirmed', { pct_ema: 70 }),
    today: day(9, 70),
    state: 'confirmed',
    rule: 'seed',
  },
  {
    name: 'weakening: back at 80 for 2 days re-confirms',
    prev: mem('weakening', { pct_ema: 85, above_days: 1 }),
    today: day(9, 85),
    state: 'confirmed',
    rule: 'confirmed: score percentile EMA back >= 80 for 2 days',
  },
  {
    name: 'weakening: below 30 breaks',
    prev: mem('weakening', { pct_ema: 25 }),
    today: day(9, 25),
    state: 'broken',
    rule: 'broken: score percentile EMA 25 below 30',
  },
  {
    name: 'weakening: the 15th day breaks',
    prev: mem('weakening', { pct_ema: 50, days_in_state: 14 }),
    today: day(9, 50),
    state: 'broken',
    rule: 'broken: 15 days weakening without getting back to 80',
  },
  {
    name: 'broken: 50 after 5 days re-arms',
    prev: mem('broken', { pct_ema: 50, days_in_state: 4 }),
    today: day(9, 50),
    state: 'forming',
    rule: 'forming: re-armed, score percentile EMA 50 >= 50 after 5 days broken',
  },
  {
    name: 'broken: 50 after 4 days waits',
    prev: mem('broken', { pct_ema: 50, days_in_state: 3 }),
    today: day(9, 50),
    state: 'broken',
    rule: 'seed',
  },
  {
    name: 'confirmed: a hard invalidation breaks at once, with its cause',
    prev: mem('confirmed', { pct_ema: 95, above_days: 5 }),
    today: day(9, 95, { invalidated: true, invalidation: 'profit collapse in 2026Q3 (net profit -62% y/y)' }),
    state: 'broken',
    rule: 'broken: profit collapse in 2026Q3 (net profit -62% y/y)',
  },
  {
    name: 'forming: the 5th absent day breaks, saying so',
    prev: mem('forming', { pct_ema: 90, absent_days: 4 }),
    today: day(9, null),
    state: 'broken',
    rule: 'broken: absent from the tier table 5 days',
  },
  {
    name: 'one change a day: re-arm lands in forming even when confirm would also hold',
    prev: mem('broken', { pct_ema: 95, above_days: 6, days_in_state: 8 }),
    today: day(9, 95),
    state: 'forming',
    rule: /^forming: re-armed/,
  },
]

describe('transitions carry their cause in words', () => {
  it.each(rows)('$name', ({ prev, today, state, rule }) => {
    const next = stepLogicState(prev, today)!
    expect(next.state).toBe(state)
    if (typeof rule === 'string') expect(next.state_rule).toBe(rule)
    else expect(next.state_rule).toMatch(rule)
    expect(next.days_in_state).toBe(next.state === prev.state ? prev.days_in_state + 1 : 1)
    expect(next.state_since).toBe(next.state === prev.state ? prev.state_since : today.date)
  })
})

/** mulberry32: a tiny seeded generator, so the random histories are the same on every run. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function randomHistory(rand: () => number): LogicDay[] {
  const length = 1 + Math.floor(rand() * 80)
  let level = rand() * 100
  const days: LogicDay[] = []
  for (let i = 1; i <= length; i++) {
    level = Math.min(100, Math.max(0, level + (rand() - 0.5) * 30))
    if (rand() < 0.12) {
      days.push(day(i, null))
      continue
    }
    const pct = Math.round(Math.min(100, Math.max(0, level + (rand() - 0.5) * 20)) * 10) / 10
    days.push(day(i, pct, rand() < 0.02 ? { invalidated: true, invalidation: 'loss in 2026Q1 (EPS -0.1)' } : {}))
  }
  return days
}

const EDGES: Record<string, RegExp> = {
  'forming>confirmed': /^confirmed: score percentile EMA \d+ >= 80 for \d+ days$/,
  'forming>broken': /^broken: (score percentile EMA \d+ below 30 after \d+ days forming|loss in|absent from)/,
  'confirmed>weakening': /^weakening: score percentile EMA \d+ below exit 70$/,
  'confirmed>broken': /^broken: (loss in|absent from)/,
  'weakening>confirmed': /^confirmed: score percentile EMA back >= 80/,
  'weakening>broken': /^broken: (score percentile EMA \d+ below 30|\d+ days weakening|loss in|absent from)/,
  'broken>forming': /^forming: re-armed, score percentile EMA \d+ >= 50 after \d+ days broken$/,
}

describe('replay (property, 400 seeded random histories)', () => {
  const rand = mulberry32(20261123)
  const histories = Array.from({ length: 400 }, () => randomHistory(rand))

  it('replaying in one go equals stepping day by day, and resuming from stored memory', () => {
    for (const days of histories) {
      let stepped: LogicMemory | undefined
      for (const d of days) stepped = stepLogicState(stepped, d)
      const whole = replayLogicState(days)
      expect(whole).toEqual(stepped)
      const cut = Math.floor(rand() * (days.length + 1))
      const head = replayLogicState(days.slice(0, cut))
      const stored = head === undefined ? undefined : (JSON.parse(JSON.stringify(head)) as LogicMemory)
      expect(replayLogicState(days.slice(cut), stored)).toEqual(whole)
    }
  })

  it('only takes allowed edges, at most one a day, each with its cause in words', () => {
    const seen = new Set<string>()
    for (const days of histories) {
      let m: LogicMemory | undefined
      for (const d of days) {
        const next = stepLogicState(m, d)
        if (next === undefined || m === undefined) {
          m = next
          continue
        }
        expect(next.absent_days).toBe(d.score === null ? m.absent_days + 1 : 0)
        if (next.state !== m.state) {
          const edge = `${m.state}>${next.state}`
          expect(EDGES[edge], edge).toBeDefined()
          expect(next.state_rule).toMatch(EDGES[edge]!)
          seen.add(edge)
        } else {
          expect(next.state_rule).toBe(m.state_rule)
        }
        m = next
      }
    }
    expect([...seen].sort()).toEqual(Object.keys(EDGES).sort())
  })
})

describe('suspended days', () => {
  it('keep the memory as it was: no EMA decay, no day counted, no transition', () => {
    const start = replayLogicState([
      { date: '2024-01-02', score: 80, tier: 'main' },
      { date: '2024-01-03', score: 82, tier: 'main' },
    ])!
    const held = replayLogicState(
      Array.from({ length: 8 }, (_, i) => ({
        date: `2024-01-${String(4 + i).padStart(2, '0')}`,
        score: 10,
        tier: 'reject' as const,
        suspended: true,
      })),
      start,
    )
    expect(held).toEqual(start)
    const notSuspended = stepLogicState(start, { date: '2024-01-04', score: 10, tier: 'reject' })!
    expect(notSuspended.score_ema).toBeLessThan(start.score_ema)
  })
})
