import { describe, expect, it } from 'vitest'
import { renderTearSheet, sparkline } from '../../src/cli/tear-sheet.js'
import { type EvalDay, evaluateTrackRecord } from '../../src/domain/track-record.js'

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
    const text = renderTearSheet({ ...record, benchmark: '000300.SH', weights: [] })
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

  it('says where outcomes come from when there are none', () => {
    const empty = evaluateTrackRecord([], { horizon: 20 })
    expect(renderTearSheet({ ...empty, benchmark: '000300.SH', weights: [] })).toContain(
      'outcomes exist once T+20 has traded',
    )
  })
})
