import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { holdingStreaks } from '../../src/domain/holding-streak.js'
import type { ScoredStock } from '../../src/domain/scoring.js'
import { createPlanInputRepository } from '../../src/storage/plan-input.repository.js'
import { createReplayMemo } from '../../src/storage/replay-memo.js'
import { stockDailyRow } from '../support/stock-daily-rows.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'

/** Tier dates in order; each date's published `main` in card order, `null` for a tier date whose plan was not published. */
const PUBLISHED: ReadonlyArray<[string, string[] | null]> = [
  ['2026-03-02', ['A.SZ']],
  ['2026-03-03', ['A.SZ', 'B.SZ']],
  ['2026-03-04', null],
  ['2026-03-05', ['B.SZ', 'A.SZ']],
  ['2026-03-06', ['C.SZ', 'A.SZ', 'B.SZ']],
  ['2026-03-09', []],
  ['2026-03-10', ['A.SZ', 'C.SZ']],
]
const DATES = PUBLISHED.map(([date]) => date)

/** A published day's rows: its main in card order, and one observed name that is not in main. */
const dayRows = (trade_date: string, main: readonly string[]) => [
  // written in reverse so the answer's order comes from card_rank, not from insertion
  ...main.map((code, i) => stockDailyRow({ code, trade_date, verdict: 'main', card_rank: i + 1 })).reverse(),
  stockDailyRow({ code: 'Z.SZ', trade_date }),
]

/** One tier row, so that the date counts as a tier date. */
const tierDateRow = (date: string) =>
  ({ trade_date: date, code: 'A.SZ', score: 50, rank: 1, tier: 'main', build_id: 'b', graph_evidence: '[]' }) as const

describe('publishedMains and storedMain: the published main lists, read by the main rows’ index', () => {
  let t: TestDatabase
  beforeAll(async () => {
    t = await createTestDatabase()
    for (const [date, main] of PUBLISHED) {
      await t.db.insertInto('tier_scores').values(tierDateRow(date)).execute()
      if (main !== null) await t.db.insertInto('stock_daily').values(dayRows(date, main)).execute()
    }
  })
  afterAll(() => t.drop())

  it('lists each tier date’s main in card order, newest first, and stops at a date whose plan was not published', async () => {
    const inputs = createPlanInputRepository(t.db)
    expect(await inputs.publishedMains('2026-03-11', 20)).toEqual([
      ['A.SZ', 'C.SZ'],
      [],
      ['C.SZ', 'A.SZ', 'B.SZ'],
      ['B.SZ', 'A.SZ'],
    ])
    expect(await inputs.publishedMains('2026-03-11', 2)).toEqual([['A.SZ', 'C.SZ'], []])
    expect(await inputs.publishedMains('2026-03-06', 20)).toEqual([['B.SZ', 'A.SZ']])
    expect(await inputs.publishedMains('2026-03-04', 20)).toEqual([['A.SZ', 'B.SZ'], ['A.SZ']])
    expect(await inputs.publishedMains('2026-03-02', 20)).toEqual([])
    expect(await inputs.publishedMains('2026-03-11', 0)).toEqual([])
  })

  it('storedMain: one date’s main in card order, empty on a day whose main was empty, none where no plan was published', async () => {
    const inputs = createPlanInputRepository(t.db)
    expect(await inputs.storedMain('2026-03-06')).toEqual(['C.SZ', 'A.SZ', 'B.SZ'])
    expect(await inputs.storedMain('2026-03-09')).toEqual([])
    expect(await inputs.storedMain('2026-03-04')).toBeUndefined()
    expect(await inputs.storedMain('2026-03-11')).toBeUndefined()
  })

  it('gives the holding streaks the build uses: a day with an empty main ends them, as a missing plan does', async () => {
    const inputs = createPlanInputRepository(t.db)
    const streaks = async (date: string) => Object.fromEntries(holdingStreaks(await inputs.publishedMains(date, 20)))
    expect(await streaks('2026-03-09')).toEqual({ 'C.SZ': 1, 'A.SZ': 2, 'B.SZ': 2 })
    expect(await streaks('2026-03-11')).toEqual({ 'A.SZ': 1, 'C.SZ': 1 })
  })

  it('a replay’s memo answers as the store does, from the days it published and the store’s before them', async () => {
    const inputs = createPlanInputRepository(t.db)
    const memo = createReplayMemo()
    // the replay rebuilt and republished the days from 2026-03-05 on; the store holds the earlier ones
    for (const [date, main] of PUBLISHED.slice(3)) {
      memo.keepTiers(date, [{ code: 'A.SZ', rank: 1 } as unknown as ScoredStock])
      if (main !== null) memo.keepDaily(date, dayRows(date, main), 'normal')
    }
    const remembered = memo.planInputs(inputs)
    for (const date of [...DATES, '2026-03-11'])
      for (const days of [0, 1, 2, 3, 20])
        expect([date, days, await remembered.publishedMains(date, days)]).toEqual([
          date,
          days,
          await inputs.publishedMains(date, days),
        ])
  })

  it('the memo answers the days it published without the store, whose rows may still be being written', async () => {
    const inputs = createPlanInputRepository(t.db)
    // a replay's tier rows are committed before its next day's build; its published rows are kept in the memo only
    for (const date of ['2026-03-11', '2026-03-12'])
      await t.db.insertInto('tier_scores').values(tierDateRow(date)).execute()
    const memo = createReplayMemo()
    memo.keepTiers('2026-03-11', [{ code: 'A.SZ', rank: 1 } as unknown as ScoredStock])
    memo.keepDaily('2026-03-11', dayRows('2026-03-11', ['D.SZ']), 'normal')
    memo.keepTiers('2026-03-12', [{ code: 'A.SZ', rank: 1 } as unknown as ScoredStock])
    memo.keepDaily('2026-03-12', dayRows('2026-03-12', ['D.SZ', 'A.SZ']), 'normal')
    // the store has no published rows for 2026-03-11 and 12: the memo's days come first, the store's 03-10 after them
    expect(await inputs.publishedMains('2026-03-13', 3)).toEqual([])
    expect(await memo.planInputs(inputs).publishedMains('2026-03-13', 3)).toEqual([
      ['D.SZ', 'A.SZ'],
      ['D.SZ'],
      ['A.SZ', 'C.SZ'],
    ])
  })
})
