import { describe, expect, it } from 'vitest'
import { renderTearSheet, sparkline, stampDutyText } from '../../src/cli/tear-sheet.js'
import { DEFAULT_BOOK_COSTS } from '../../src/domain/book.js'
import { assembleBookReport } from '../../src/domain/book-report.js'
import { type EvalDay, evaluateTrackRecord } from '../../src/domain/track-record.js'

/** A small book: two plan days, names A and B rising 1% a day against a universe flat and CSI 300 down 0.5%. */
function bookOf(days: number) {
  const calendar = Array.from({ length: days + 1 }, (_, i) => `2024-03-${String(i + 1).padStart(2, '0')}`)
  return assembleBookReport({
    plan: calendar.slice(0, days).map((date) => ({ date, main: ['A', 'B'] })),
    market: {
      calendar,
      bar: (_code, date) => {
        const k = calendar.indexOf(date)
        return {
          open: 1.01 ** (k - 1),
          close: 1.01 ** k,
          adj: 1,
          limitUp: null,
          limitDown: null,
          amount20d: 1e9,
          vol20d: 0.02,
        }
      },
      universeReturn: () => 0,
      benchmarkReturn: () => -0.005,
    },
    facts: [],
    factors: new Map(),
    depth: 2,
    costs: DEFAULT_BOOK_COSTS,
    benchmark: '000300.SH',
  })
}

describe('evaluate tear sheet', () => {
  it('draws a sparkline from the lowest to the highest block and resamples long series', () => {
    expect(sparkline([0, 1, 2, 3, 4, 5, 6, 7])).toBe('▁▂▃▄▅▆▇█')
    expect(sparkline([5, 5, 5])).toBe('▄▄▄')
    expect(
      sparkline(
        Array.from({ length: 250 }, (_, i) => i),
        50,
      ).length,
    ).toBe(50)
  })

  it('prints the IC table, quintiles, the main portfolio and the groups with CJK themes aligned', () => {
    const day = (date: string, bench: number): EvalDay => ({
      date,
      exitDate: date,
      regime: 'neutral',
      benchRet: bench,
      rows: ['A', 'B', 'C', 'D', 'E', 'F'].map((code, i) => ({
        code,
        score: 90 - i * 10,
        components: { upside: i },
        decision: i === 0 ? 'main' : 'reject',
        logicState: 'forming',
        theme: i % 2 ? '算力' : 'solar',
        tradable: true,
        reason: null,
        ret: 0.05 - i * 0.01,
      })),
    })
    const record = evaluateTrackRecord([day('2024-03-01', 0.01), day('2024-03-04', 0)], {
      horizon: 1,
      components: ['upside'],
    })
    const text = renderTearSheet({ ...record, benchmark: '000300.SH', weights: [], book: bookOf(0) })
    expect(text).toContain('2 plan days, horizon 1')
    expect(text).toMatch(/score\s+1\.000/)
    expect(text).toMatch(/upside\s+-1\.000/)
    expect(text).toContain('2 of 2 days invested')
    const themeLines = text.split('\n').filter((l) => l.startsWith('算力') || l.startsWith('solar'))
    expect(themeLines).toHaveLength(2)
    // both rows are as wide on a terminal (算力 takes two columns a character), so the columns line up
    const width = (l: string) => [...l].reduce((n, ch) => n + (/[\u4e00-\u9fff]/.test(ch) ? 2 : 1), 0)
    expect(width(themeLines[0]!)).toBe(width(themeLines[1]!))
    expect(themeLines[0]!.length).not.toBe(themeLines[1]!.length)
  })

  it('opens with the main book at each size against the universe and CSI 300, then the signal research', () => {
    const record = evaluateTrackRecord([], { horizon: 5 })
    const text = renderTearSheet({ ...record, benchmark: '000300.SH', weights: [], book: bookOf(30) })
    expect(text.indexOf('Main book 2024-03-02 .. 2024-03-31')).toBe(0)
    expect(text).toMatch(/^20 M\s/m)
    expect(text).toMatch(/^300 M\s/m)
    expect(text).toContain('Against 000300.SH (a price index')
    expect(text).toContain('Against the investable universe')
    expect(text.indexOf('Main book')).toBeLessThan(text.indexOf('no outcomes at horizon 5'))
    // the rate in force from the book's first day, never the schedule's open start
    expect(text).toContain('stamp duty on sells 0.05% from 2024-03-02,')
    expect(text).not.toContain('0000-01-01')
  })

  it('names the stamp duty rates in force over the book, each from the later of its start and the first day', () => {
    const schedule = [
      { from: '0000-01-01', rate: 0.001 },
      { from: '2023-08-28', rate: 0.0005 },
    ]
    expect(stampDutyText(schedule, '2023-06-01', '2023-12-29')).toBe('0.10% from 2023-06-01, 0.05% from 2023-08-28')
    expect(stampDutyText(schedule, '2024-01-02', '2024-12-31')).toBe('0.05% from 2024-01-02')
    expect(stampDutyText(schedule, '2022-01-04', '2022-12-30')).toBe('0.10% from 2022-01-04')
  })

  it('says where outcomes come from when there are none', () => {
    const empty = evaluateTrackRecord([], { horizon: 20 })
    expect(renderTearSheet({ ...empty, benchmark: '000300.SH', weights: [], book: bookOf(0) })).toContain(
      'outcomes exist once T+20 has traded',
    )
  })
})
