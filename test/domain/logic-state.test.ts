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

const day = (i: number, score: number | null, tier: LogicDay['tier'] = 'main', invalidated = false): LogicDay => ({
  date: dt(i),
  score,
  tier: score === null ? null : tier,
  ...(invalidated ? { invalidated } : {}),
})

const mem = (state: LogicStateName, over: Partial<LogicMemory> = {}): LogicMemory => ({
  state,
  score: over.score_ema ?? 50,
  score_ema: 50,
  state_since: '2025-12-01',
  days_in_state: 1,
  state_rule: 'seed',
  above_days: 0,
  absent_days: 0,
  ...over,
})

describe('LOGIC_RULES', () => {
  it('holds the DESIGN thresholds and is frozen', () => {
    expect(LOGIC_RULES).toEqual({
      span: 5,
      enter: 70,
      exit: 60,
      break: 40,
      rearm: 55,
      confirmDays: 2,
      weakeningMaxDays: 10,
      rearmCooldownDays: 5,
      formingFailDays: 5,
      absentBreakDays: 5,
    })
    expect(Object.isFrozen(LOGIC_RULES)).toBe(true)
  })
})

describe('first appearance', () => {
  it('starts forming with rule new, EMA seeded with the first score', () => {
    expect(stepLogicState(undefined, day(1, 72))).toEqual({
      state: 'forming',
      score: 72,
      score_ema: 72,
      state_since: dt(1),
      days_in_state: 1,
      state_rule: 'new',
      above_days: 1,
      absent_days: 0,
    })
  })

  it('is forming even with a top score, a reject tier or an invalidation on that day', () => {
    expect(stepLogicState(undefined, day(1, 100))?.state).toBe('forming')
    expect(stepLogicState(undefined, day(1, 20, 'reject'))?.state).toBe('forming')
    expect(stepLogicState(undefined, day(1, 80, 'main', true))).toMatchObject({ state: 'forming', state_rule: 'new' })
  })

  it('gives undefined while a code without memory is absent', () => {
    expect(stepLogicState(undefined, day(1, null))).toBeUndefined()
    expect(replayLogicState([day(1, null), day(2, null)])).toBeUndefined()
    expect(replayLogicState([day(1, null), day(2, null), day(3, 50)])).toMatchObject({
      state: 'forming',
      state_since: dt(3),
      days_in_state: 1,
    })
  })

  it('replays an empty history to the seed', () => {
    expect(replayLogicState([])).toBeUndefined()
    const seed = mem('confirmed')
    expect(replayLogicState([], seed)).toBe(seed)
  })
})

describe('EMA maths (alpha = 2/(5+1) = 1/3)', () => {
  it('smooths present days: 90 -> (60 + 2*90)/3 = 80 -> (30 + 2*80)/3 = 63.33', () => {
    const a = replayLogicState([day(1, 90)])
    const b = stepLogicState(a, day(2, 60))
    const c = stepLogicState(b, day(3, 30))
    expect(a?.score_ema).toBe(90)
    expect(b?.score_ema).toBeCloseTo(80, 10)
    expect(c?.score_ema).toBeCloseTo(190 / 3, 10)
    expect(c?.score).toBe(30)
  })

  it('decays an absent day by 2/3, counts absent_days and resets them on a present day', () => {
    const seed = mem('forming', { score_ema: 60, days_in_state: 2 })
    const a1 = stepLogicState(seed, day(1, null))
    expect(a1).toMatchObject({ score: null, absent_days: 1, above_days: 0, state: 'forming', days_in_state: 3 })
    expect(a1?.score_ema).toBeCloseTo(40, 10)
    const a2 = stepLogicState(a1, day(2, null))
    expect(a2?.score_ema).toBeCloseTo(80 / 3, 10)
    expect(a2?.absent_days).toBe(2)
    const back = stepLogicState(a2, day(3, 70))
    expect(back?.score_ema).toBeCloseTo((70 + (2 * 80) / 3) / 3, 10) // 41.78
    expect(back?.absent_days).toBe(0)
  })

  it('counts above_days while the EMA is >= 70 and resets them below', () => {
    const h = replayLogicState([day(1, 70)], undefined)
    expect(h?.above_days).toBe(1)
    const h2 = stepLogicState(h, day(2, 70, 'reject'))
    expect(h2?.above_days).toBe(2)
    const h3 = stepLogicState(h2, day(3, 67, 'reject')) // (67 + 140)/3 = 69
    expect(h3?.score_ema).toBeCloseTo(69, 10)
    expect(h3?.above_days).toBe(0)
  })

  it('keeps days_in_state at 1 on entry and +1 per later step', () => {
    const days = [day(1, 50), day(2, 50), day(3, 50)]
    expect(replayLogicState(days)).toMatchObject({ state: 'forming', days_in_state: 3, state_since: dt(1) })
  })
})

interface Row {
  readonly name: string
  readonly prev: LogicMemory
  readonly today: LogicDay
  readonly state: LogicStateName
  readonly rule: string
  readonly days: number
}

// A day whose score equals the previous EMA keeps the EMA where it is, which pins each boundary exactly.
const rows: Row[] = [
  // forming -> confirmed `enter`
  {
    name: 'forming: 2nd day >= 70 enters',
    prev: mem('forming', { score_ema: 75, above_days: 1 }),
    today: day(9, 75),
    state: 'confirmed',
    rule: 'enter',
    days: 1,
  },
  {
    name: 'forming: EMA exactly 70 on the 2nd day enters',
    prev: mem('forming', { score_ema: 70, above_days: 1 }),
    today: day(9, 70, 'observe'),
    state: 'confirmed',
    rule: 'enter',
    days: 1,
  },
  {
    name: 'forming: only one day >= 70 stays',
    prev: mem('forming', { score_ema: 65, above_days: 0 }),
    today: day(9, 85), // (85 + 130)/3 = 71.7
    state: 'forming',
    rule: 'seed',
    days: 2,
  },
  {
    name: 'forming: reject tier blocks enter',
    prev: mem('forming', { score_ema: 75, above_days: 3 }),
    today: day(9, 75, 'reject'),
    state: 'forming',
    rule: 'seed',
    days: 2,
  },
  // forming -> broken `fail`
  {
    name: 'forming: EMA < 40 on the 5th day fails',
    prev: mem('forming', { score_ema: 39, days_in_state: 4 }),
    today: day(9, 39),
    state: 'broken',
    rule: 'fail',
    days: 1,
  },
  {
    name: 'forming: EMA < 40 on the 4th day stays',
    prev: mem('forming', { score_ema: 39, days_in_state: 3 }),
    today: day(9, 39),
    state: 'forming',
    rule: 'seed',
    days: 4,
  },
  {
    name: 'forming: EMA exactly 40 on day 5 stays',
    prev: mem('forming', { score_ema: 40, days_in_state: 4 }),
    today: day(9, 40),
    state: 'forming',
    rule: 'seed',
    days: 5,
  },
  // confirmed -> weakening `exit`
  {
    name: 'confirmed: EMA < 60 exits',
    prev: mem('confirmed', { score_ema: 59 }),
    today: day(9, 59),
    state: 'weakening',
    rule: 'exit',
    days: 1,
  },
  {
    name: 'confirmed: EMA exactly 60 stays',
    prev: mem('confirmed', { score_ema: 60, days_in_state: 6 }),
    today: day(9, 60),
    state: 'confirmed',
    rule: 'seed',
    days: 7,
  },
  {
    name: 'confirmed: reject tier exits even with a high EMA',
    prev: mem('confirmed', { score_ema: 80, above_days: 4 }),
    today: day(9, 80, 'reject'),
    state: 'weakening',
    rule: 'exit',
    days: 1,
  },
  {
    name: 'confirmed: absent (tier null) with EMA still >= 60 stays',
    prev: mem('confirmed', { score_ema: 95 }),
    today: day(9, null), // 95 x 2/3 = 63.3
    state: 'confirmed',
    rule: 'seed',
    days: 2,
  },
  // weakening -> confirmed `reenter`
  {
    name: 'weakening: 2 days >= 70 re-enters',
    prev: mem('weakening', { score_ema: 75, above_days: 1, days_in_state: 3 }),
    today: day(9, 75, 'observe'),
    state: 'confirmed',
    rule: 'reenter',
    days: 1,
  },
  {
    name: 'weakening: reject tier blocks reenter',
    prev: mem('weakening', { score_ema: 75, above_days: 1, days_in_state: 3 }),
    today: day(9, 75, 'reject'),
    state: 'weakening',
    rule: 'seed',
    days: 4,
  },
  // weakening -> broken `break`
  {
    name: 'weakening: EMA < 40 breaks',
    prev: mem('weakening', { score_ema: 39, days_in_state: 2 }),
    today: day(9, 39),
    state: 'broken',
    rule: 'break',
    days: 1,
  },
  {
    name: 'weakening: 10th day breaks',
    prev: mem('weakening', { score_ema: 50, days_in_state: 9 }),
    today: day(9, 50),
    state: 'broken',
    rule: 'break',
    days: 1,
  },
  {
    name: 'weakening: 9th day at EMA 50 stays',
    prev: mem('weakening', { score_ema: 50, days_in_state: 8 }),
    today: day(9, 50),
    state: 'weakening',
    rule: 'seed',
    days: 9,
  },
  // broken -> forming `rearm`
  {
    name: 'broken: 5th day with EMA >= 55 rearms',
    prev: mem('broken', { score_ema: 60, days_in_state: 4 }),
    today: day(9, 60),
    state: 'forming',
    rule: 'rearm',
    days: 1,
  },
  {
    name: 'broken: EMA exactly 55 rearms',
    prev: mem('broken', { score_ema: 55, days_in_state: 4 }),
    today: day(9, 55),
    state: 'forming',
    rule: 'rearm',
    days: 1,
  },
  {
    name: 'broken: 4th day stays (cooldown)',
    prev: mem('broken', { score_ema: 90, days_in_state: 3 }),
    today: day(9, 90),
    state: 'broken',
    rule: 'seed',
    days: 4,
  },
  {
    name: 'broken: EMA 54 stays',
    prev: mem('broken', { score_ema: 54, days_in_state: 8 }),
    today: day(9, 54),
    state: 'broken',
    rule: 'seed',
    days: 9,
  },
  // any -> broken `invalidated`
  ...(['forming', 'confirmed', 'weakening'] as const).map(
    (s): Row => ({
      name: `${s}: hard invalidation breaks`,
      prev: mem(s, { score_ema: 80, above_days: 3 }),
      today: day(9, 80, 'main', true),
      state: 'broken',
      rule: 'invalidated',
      days: 1,
    }),
  ),
  ...(['forming', 'confirmed', 'weakening'] as const).map(
    (s): Row => ({
      name: `${s}: 5th absent day breaks`,
      prev: mem(s, { score_ema: 99, absent_days: 4 }),
      today: day(9, null),
      state: 'broken',
      rule: 'invalidated',
      days: 1,
    }),
  ),
  {
    name: 'forming: 4th absent day stays',
    prev: mem('forming', { score_ema: 60, absent_days: 3 }),
    today: day(9, null),
    state: 'forming',
    rule: 'seed',
    days: 2,
  },
  // precedence
  {
    name: 'precedence: invalidated beats enter',
    prev: mem('forming', { score_ema: 80, above_days: 1 }),
    today: day(9, 80, 'main', true),
    state: 'broken',
    rule: 'invalidated',
    days: 1,
  },
  {
    name: 'precedence: invalidated beats exit',
    prev: mem('confirmed', { score_ema: 30 }),
    today: day(9, 30, 'reject', true),
    state: 'broken',
    rule: 'invalidated',
    days: 1,
  },
  {
    name: 'precedence: 5th absent day (invalidated) beats fail',
    prev: mem('forming', { score_ema: 45, days_in_state: 4, absent_days: 4 }),
    today: day(9, null), // 45 x 2/3 = 30 < 40 on day 5 would also fail
    state: 'broken',
    rule: 'invalidated',
    days: 1,
  },
  {
    name: 'precedence: reenter beats the 10-day break',
    prev: mem('weakening', { score_ema: 75, above_days: 1, days_in_state: 9 }),
    today: day(9, 75),
    state: 'confirmed',
    rule: 'reenter',
    days: 1,
  },
  {
    name: 'precedence: an invalidation keeps broken broken (no rearm, no reset)',
    prev: mem('broken', { score_ema: 80, days_in_state: 7, state_rule: 'break' }),
    today: day(9, 80, 'main', true),
    state: 'broken',
    rule: 'break',
    days: 8,
  },
  {
    name: 'precedence: 5 absent days keep broken broken',
    prev: mem('broken', { score_ema: 99, days_in_state: 7, absent_days: 4 }),
    today: day(9, null), // 66 >= 55, but absent
    state: 'broken',
    rule: 'seed',
    days: 8,
  },
  {
    name: 'one change a day: rearm lands in forming even when enter would also hold',
    prev: mem('broken', { score_ema: 80, above_days: 6, days_in_state: 4 }),
    today: day(9, 80),
    state: 'forming',
    rule: 'rearm',
    days: 1,
  },
]

describe('transitions (table)', () => {
  it.each(rows)('$name', ({ prev, today, state, rule, days }) => {
    const next = stepLogicState(prev, today)!
    expect(next.state).toBe(state)
    expect(next.state_rule).toBe(rule)
    expect(next.days_in_state).toBe(days)
    expect(next.state_since).toBe(state === prev.state ? prev.state_since : today.date)
    expect(next.score).toBe(today.score)
  })
})

describe('histories', () => {
  it('walks every state: new, enter, exit, break, rearm, enter', () => {
    const scores = [80, 80, 50, 40, 20, 20, 60, 60, 70, 70, 70, 80, 80, 80]
    const trail: string[] = []
    let m: LogicMemory | undefined
    scores.forEach((s, i) => {
      m = stepLogicState(m, day(i + 1, s))
      trail.push(`${m?.state}/${m?.state_rule}`)
    })
    // EMA: 80, 80, 70, 60, 46.7, 37.8, 45.2, 50.1, 56.7, 61.2, 64.1, 69.4, 72.9, 75.3
    expect(trail).toEqual([
      'forming/new',
      'confirmed/enter',
      'confirmed/enter',
      'confirmed/enter',
      'weakening/exit',
      'broken/break',
      'broken/break',
      'broken/break',
      'broken/break',
      'forming/rearm', // 5th broken day, EMA 61.2 >= 55
      'forming/rearm',
      'forming/rearm',
      'forming/rearm', // EMA 72.9: first day >= 70
      'confirmed/enter',
    ])
    expect(m).toMatchObject({ state_since: dt(14), days_in_state: 1 })
  })

  it('lets the EMA of an absent code decay: 90 -> 60 -> 40 -> 26.7 walks confirmed, weakening, broken', () => {
    const days = [day(1, 90), day(2, 90), day(3, null), day(4, null), day(5, null), day(6, null), day(7, null)]
    const trail = days.map((_, i) => replayLogicState(days.slice(0, i + 1)))
    expect(trail.map((m) => `${m?.state}/${m?.state_rule}/${m?.absent_days}`)).toEqual([
      'forming/new/0',
      'confirmed/enter/0',
      'confirmed/enter/1', // 60.0: not below exit
      'weakening/exit/2', // 40.0
      'broken/break/3', // 26.7
      'broken/break/4',
      'broken/break/5', // 5th absent day: broken stays broken, no reset
    ])
    expect(trail[6]?.score_ema).toBeCloseTo(90 * (2 / 3) ** 5, 10)
    expect(trail[6]).toMatchObject({ state_since: dt(5), days_in_state: 3 })
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
  // A drifting level so histories visit every state, with noise, gaps and rare invalidations.
  let level = rand() * 100
  const days: LogicDay[] = []
  for (let i = 1; i <= length; i++) {
    level = Math.min(100, Math.max(0, level + (rand() - 0.5) * 30))
    if (rand() < 0.12) {
      days.push(day(i, null))
      continue
    }
    const score = Math.round(Math.min(100, Math.max(0, level + (rand() - 0.5) * 20)) * 10) / 10
    const tier = rand() < 0.1 ? 'reject' : score >= 70 ? 'main' : score >= 55 ? 'observe' : 'reject'
    days.push(day(i, score, tier, rand() < 0.02))
  }
  return days
}

const EDGES = new Set([
  'forming>confirmed:enter',
  'forming>broken:fail',
  'forming>broken:invalidated',
  'confirmed>weakening:exit',
  'confirmed>broken:invalidated',
  'weakening>confirmed:reenter',
  'weakening>broken:break',
  'weakening>broken:invalidated',
  'broken>forming:rearm',
])

describe('replay (property, 400 seeded random histories)', () => {
  const rand = mulberry32(20261120)
  const histories = Array.from({ length: 400 }, () => randomHistory(rand))

  it('replaying in one go equals stepping day by day, and resuming from stored memory', () => {
    for (const days of histories) {
      let stepped: LogicMemory | undefined
      for (const d of days) stepped = stepLogicState(stepped, d)
      const whole = replayLogicState(days)
      expect(whole).toEqual(stepped)
      const cut = Math.floor(rand() * (days.length + 1))
      const head = replayLogicState(days.slice(0, cut))
      // Memory as it comes back from the database (JSON numbers at full precision).
      const stored = head === undefined ? undefined : (JSON.parse(JSON.stringify(head)) as LogicMemory)
      expect(replayLogicState(days.slice(cut), stored)).toEqual(whole)
      expect(replayLogicState(days)).toEqual(whole) // deterministic
    }
  })

  it('only takes allowed edges, at most one a day, with consistent counters', () => {
    const seen = new Set<string>()
    for (const days of histories) {
      let m: LogicMemory | undefined
      for (const d of days) {
        const next = stepLogicState(m, d)
        if (next === undefined) {
          expect(m).toBeUndefined()
          expect(d.score).toBeNull()
          continue
        }
        expect(next.days_in_state).toBeGreaterThanOrEqual(1)
        expect(next.score_ema).toBeGreaterThanOrEqual(0)
        expect(next.score_ema).toBeLessThanOrEqual(100)
        expect(next.absent_days).toBe(d.score === null ? (m?.absent_days ?? 0) + 1 : 0)
        expect(next.above_days > 0).toBe(next.score_ema >= LOGIC_RULES.enter)
        if (m === undefined) {
          expect(next).toMatchObject({ state: 'forming', state_rule: 'new', days_in_state: 1 })
        } else if (next.state !== m.state) {
          const edge = `${m.state}>${next.state}:${next.state_rule}`
          expect(EDGES.has(edge), edge).toBe(true)
          seen.add(edge)
          expect(next.days_in_state).toBe(1)
          expect(next.state_since).toBe(d.date)
        } else {
          expect(next.days_in_state).toBe(m.days_in_state + 1)
          expect(next.state_since).toBe(m.state_since)
          expect(next.state_rule).toBe(m.state_rule)
        }
        m = next
      }
    }
    // The generator is rich enough to exercise every edge.
    expect([...seen].sort()).toEqual([...EDGES].sort())
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
