import { describe, expect, it } from 'vitest'
import { type BarSeries, type BuildInput, scoreStocks } from '../../src/domain/scoring.js'

const calendar = Array.from(
  { length: 70 },
  (_, i) => `2026-0${i < 30 ? 7 : i < 60 ? 8 : 9}-${String((i % 30) + 1).padStart(2, '0')}`,
)
const T = calendar.at(-1)!

function series(closes: number[], options: Partial<BarSeries> = {}): BarSeries {
  const dates = calendar.slice(-closes.length)
  return {
    dates,
    close: closes,
    adjFactor: closes.map(() => 1),
    amount: closes.map(() => 1e8),
    suspended: closes.map(() => false),
    preClose: closes.at(-2) ?? null,
    isSt: false,
    ...options,
  }
}

const rising = Array.from({ length: 70 }, (_, i) => 10 + i * 0.2)
const falling = Array.from({ length: 70 }, (_, i) => 30 - i * 0.2)

function input(overrides: Partial<BuildInput> = {}): BuildInput {
  return {
    date: T,
    calendar,
    securities: [
      { code: '600001.SH', name: 'Up', list_date: '2020-01-01' },
      { code: '600002.SH', name: 'Down', list_date: '2020-01-01' },
      { code: '600003.SH', name: 'New', list_date: calendar[50]! },
      { code: '600004.SH', name: 'No bar today', list_date: '2020-01-01' },
    ],
    bars: new Map([
      ['600001.SH', series(rising)],
      ['600002.SH', series(falling)],
      ['600003.SH', series(rising.slice(-20))],
      ['600004.SH', { ...series(rising.slice(0, 69)), dates: calendar.slice(0, 69) }],
    ]),
    edges: [
      { theme: 'Hot', segment: 'S1', code: '600001.SH', weight: 0.9, evidence: 'supplies X', track: 'tech' },
      { theme: 'Cold', segment: 'S2', code: '600001.SH', weight: 0.2, evidence: 'minor', track: 'tech' },
    ],
    events: calendar.slice(-10).map((d) => ({ trade_date: d, theme: 'Hot', intensity: 95 })),
    facts: new Map([
      ['600001.SH', { upside: 0.3, quality: 90, invalidated: false }],
      ['600002.SH', { upside: -0.2, quality: 40, invalidated: true }],
    ]),
    ...overrides,
  }
}

describe('scoreStocks', () => {
  it('scores every listed stock with a bar on the date and ranks best first', () => {
    const scored = scoreStocks(input())
    expect(scored.map((s) => s.code)).toEqual(['600001.SH', '600003.SH', '600002.SH'])
    expect(scored.map((s) => s.rank)).toEqual([1, 2, 3])
    const top = scored[0]!
    expect(top).toMatchObject({ theme: 'Hot', segment: 'S1', track: 'tech', upside: 0.3, invalidated: false })
    expect(top.heat).toBeGreaterThan(60)
    expect(top.graph_evidence.map((e) => e.theme)).toEqual(['Hot', 'Cold'])
    expect(scored[2]).toMatchObject({ theme: null, heat: null, transmission: null, invalidated: true })
  })

  it('puts tiers at 70 and 55', () => {
    for (const s of scoreStocks(input())) {
      expect(s.tier).toBe(s.score >= 70 ? 'main' : s.score >= 55 ? 'observe' : 'reject')
    }
  })

  it('counts listed trading days and leaves suspended days out of the mean amount', () => {
    const amounts = rising.map((_, i) => (i % 2 === 0 ? 2e8 : 0))
    const suspended = rising.map((_, i) => i % 2 === 1)
    const scored = scoreStocks(
      input({
        bars: new Map([
          ['600001.SH', series(rising, { amount: amounts, suspended })],
          ['600003.SH', series(rising.slice(-20))],
        ]),
      }),
    )
    const up = scored.find((s) => s.code === '600001.SH')!
    expect(up.amount_ma20).toBe(2e8)
    expect(up.is_suspended).toBe(true)
    expect(scored.find((s) => s.code === '600003.SH')!.listed_days).toBe(20)
    expect(up.listed_days).toBeGreaterThan(60)
  })

  it('breaks score ties by code and is deterministic', () => {
    const twin = input({
      securities: [
        { code: '600009.SH', name: 'B', list_date: '2020-01-01' },
        { code: '600008.SH', name: 'A', list_date: '2020-01-01' },
      ],
      bars: new Map([
        ['600009.SH', series(rising)],
        ['600008.SH', series(rising)],
      ]),
      edges: [],
      facts: new Map(),
    })
    const scored = scoreStocks(twin)
    expect(scored[0]!.score).toBe(scored[1]!.score)
    expect(scored.map((s) => s.code)).toEqual(['600008.SH', '600009.SH'])
    expect(scoreStocks(twin)).toEqual(scored)
  })
})
