import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Outcome } from '../../src/domain/outcomes.js'
import { createOutcomesRepository } from '../../src/storage/outcomes.repository.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'

function outcome(code: string, over: Partial<Outcome> = {}): Outcome {
  return {
    trade_date: '2025-03-03',
    horizon: 5,
    code,
    entry_date: '2025-03-04',
    exit_date: '2025-03-10',
    tradable: true,
    reason: null,
    ret: 0.1 + 0.2,
    benchmark: '000300.SH',
    bench_ret: -1e-17,
    universe_ret: null,
    excess: 0.3,
    regime: 'weak',
    ...over,
  }
}

const stored = (t: TestDatabase) =>
  t.db
    .selectFrom('plan_outcomes')
    .select(['trade_date', 'horizon', 'code', 'entry_date', 'exit_date', 'tradable', 'reason', 'ret', 'benchmark'])
    .select(['bench_ret', 'universe_ret', 'excess', 'regime'])
    .orderBy('code')
    .execute()

describe('outcome rows by COPY', () => {
  let t: TestDatabase
  beforeAll(async () => {
    t = await createTestDatabase()
  })
  afterAll(() => t.drop())

  it('writes a day by COPY as the insert would, and skips rows already stored as the insert did', async () => {
    const viaCopy = createOutcomesRepository(t.db, t.pool)
    const first = [outcome('000001.SZ'), outcome('600000.SH', { tradable: false, reason: 'suspended', ret: null })]
    expect(await viaCopy.insert(first)).toBe(2)
    expect(await stored(t)).toEqual(first.map((r) => ({ ...r })))

    // a second run of the same day, and one that overlaps it: only the new row goes in, the stored ones stay
    expect(await viaCopy.insert(first.map((r) => ({ ...r, ret: 9 })))).toBe(0)
    const overlap = [outcome('000001.SZ', { ret: 9 }), outcome('300750.SZ')]
    expect(await viaCopy.insert(overlap)).toBe(1)
    const rows = await stored(t)
    expect(rows.map((r) => r.code)).toEqual(['000001.SZ', '300750.SZ', '600000.SH'])
    expect(rows[0]!.ret).toBe(0.1 + 0.2)
  })

  it('writes nothing of a day with a row the table refuses', async () => {
    const viaCopy = createOutcomesRepository(t.db, t.pool)
    const before = await stored(t)
    const bad = [
      outcome('000002.SZ', { trade_date: '2025-03-05' }),
      outcome('000003.SZ', { trade_date: '2025-03-05', tradable: false }),
    ]
    await expect(viaCopy.insert(bad)).rejects.toThrow(/check constraint/)
    expect(await stored(t)).toEqual(before)
  })
})
