import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ScoredStock } from '../../src/domain/scoring.js'
import { createPlanInputRepository } from '../../src/storage/plan-input.repository.js'
import { createReplayMemo } from '../../src/storage/replay-memo.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'

const DATES = ['2025-03-03', '2025-03-04', '2025-03-05', '2025-03-06', '2025-03-07', '2025-03-10']

describe('replay memo', () => {
  let t: TestDatabase
  beforeAll(async () => {
    t = await createTestDatabase()
  })
  afterAll(() => t.drop())

  it('answers tier dates as the store does, whichever range is asked, once the replay rebuilt the later days', async () => {
    const inputs = createPlanInputRepository(t.db)
    const memo = createReplayMemo()
    // the two first days were in the store before the replay; it rebuilds the others in order
    const row = (code: string, rank: number) => ({
      code,
      score: 50,
      rank,
      tier: 'reject' as const,
      build_id: 'b',
      graph_evidence: '[]',
    })
    for (const [i, date] of DATES.entries()) {
      await t.db
        .insertInto('tier_scores')
        .values([row('000001.SZ', 1), row('600000.SH', 2)].map((r) => ({ ...r, trade_date: date })))
        .execute()
      if (i >= 2) memo.keepTiers(date, [{ code: '000001.SZ', rank: 1 } as unknown as ScoredStock])
    }
    const remembered = memo.planInputs(inputs)
    const asked = ['2025-03-01', ...DATES, '2025-03-11']
    for (const since of asked)
      for (const date of asked.filter((d) => d >= since))
        expect([since, date, await remembered.tierDates(since, date)]).toEqual([
          since,
          date,
          await inputs.tierDates(since, date),
        ])
    expect(await remembered.previousTierDate(DATES[4]!)).toBe(DATES[3])
    expect(await remembered.previousTierDate(DATES[2]!)).toBe(DATES[1])
  })
})
