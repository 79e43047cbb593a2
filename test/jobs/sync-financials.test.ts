import { describe, expect, it } from 'vitest'
import { announcedBy, reportPeriodsBy, reportQueries } from '../../src/jobs/sync-financials.js'

describe('which fina_indicator_vip calls bring a day its reports', () => {
  it('asks each calendar day since the previous synced day, weekends included', () => {
    expect(reportQueries('2024-04-19', '2024-04-22')).toEqual([
      { ann_date: '20240420' },
      { ann_date: '20240421' },
      { ann_date: '20240422' },
    ])
  })

  it('asks the last eight report periods when there is no day before, or the gap is longer than a quarter', () => {
    const periods = ['20240331', '20231231', '20230930', '20230630', '20230331', '20221231', '20220930', '20220630']
    expect(reportQueries(undefined, '2024-04-18')).toEqual(periods.map((period) => ({ period })))
    expect(reportQueries('2024-01-10', '2024-04-18')).toEqual(periods.map((period) => ({ period })))
    expect(reportPeriodsBy('2024-03-31', 2)).toEqual(['20240331', '20231231'])
    expect(reportPeriodsBy('2024-03-30', 2)).toEqual(['20231231', '20230930'])
  })

  it('keeps only reports announced by the day, in the first answer’s field order', () => {
    const table = announcedBy(
      [
        {
          fields: ['ts_code', 'ann_date', 'roe'],
          items: [
            ['A', '20240418', 1],
            ['A', '20240520', 2],
          ],
        },
        { fields: [], items: [] },
        { fields: ['roe', 'ann_date', 'ts_code'], items: [[3, '20240410', 'B']] },
      ],
      '2024-04-18',
    )
    expect(table).toEqual({
      fields: ['ts_code', 'ann_date', 'roe'],
      items: [
        ['A', '20240418', 1],
        ['B', '20240410', 3],
      ],
    })
    expect(announcedBy([{ fields: ['ts_code', 'ann_date'], items: [['A', '20240520']] }], '2024-04-18')).toBeNull()
  })
})
