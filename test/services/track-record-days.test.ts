import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_BENCHMARK, HORIZONS } from '../../src/domain/outcomes.js'
import { benchmarkReturn, SCORE_COMPONENTS, type TrackRecord } from '../../src/domain/track-record.js'
import type { TrackRecordReport } from '../../src/services/track-record.service.js'
import { createTrackRecordRepository } from '../../src/storage/track-record.repository.js'
import { createDemoDatabase, type DemoMarket, WEEKS_OF_PLANS } from '../support/demo-market.js'
import type { TestDatabase } from '../support/test-db.js'
import { referenceTrackRecord } from '../support/track-record-reference.js'

const signal = new AbortController().signal
const OTHER_INDEX = '000905.SH'

/**
 * The record as `evaluate` computed it before issue 28: every outcome row of the range read with its tier and
 * daily row, the figures computed row by row (the frozen reference evaluator).
 */
async function rowByRow(
  t: TestDatabase,
  query: { horizon: number; benchmark: string; from?: string; to?: string },
): Promise<TrackRecord> {
  const repository = createTrackRecordRepository(t.db)
  const signalIcs = await repository.signalIcs(query.horizon, query.from, query.to)
  const components = signalIcs.size > 0 ? [] : SCORE_COMPONENTS
  const days = await repository.days({ ...query, components })
  const bars =
    days.length > 0 ? await repository.indexBars(query.benchmark, days[0]!.entryDate, days.at(-1)!.exitDate) : new Map()
  return referenceTrackRecord(
    days.map((d) => ({ ...d, benchRet: benchmarkReturn(bars, d.entryDate, d.exitDate) })),
    { horizon: query.horizon, components, precomputedIcs: signalIcs },
  )
}

/**
 * Every figure of the two records equal. The group tables are pooled from per-day tallies instead of one running
 * tally over every row, so their mean excess and t may differ in the last bits; everything else is computed by the
 * same arithmetic in the same order and must match exactly.
 */
function expectSameRecord(actual: TrackRecordReport, expected: TrackRecord): void {
  const { groups, benchmark: _benchmark, weights: _weights, book: _book, ...rest } = actual
  const { groups: expectedGroups, ...expectedRest } = expected
  expect(rest).toEqual(expectedRest)
  for (const kind of ['decision', 'logic_state', 'regime', 'theme'] as const) {
    expect(groups[kind].map((g) => [g.key, g.count, g.hit_rate])).toEqual(
      expectedGroups[kind].map((g) => [g.key, g.count, g.hit_rate]),
    )
    groups[kind].forEach((g, i) => {
      const want = expectedGroups[kind][i]!
      for (const field of ['mean_excess', 't'] as const) {
        if (want[field] === null) expect(g[field]).toBeNull()
        else {
          // relative to the scale of what is pooled (returns of about 1e-3, a t of about 1), not to a mean that
          // cancels to near zero
          const scale = Math.max(Math.abs(want[field]!), field === 't' ? 1 : 1e-3)
          expect(Math.abs(g[field]! - want[field]!)).toBeLessThanOrEqual(1e-12 * scale)
        }
      }
    })
  }
}

async function storedDays(t: TestDatabase, horizon: number): Promise<string[]> {
  const rows = await t.db
    .selectFrom('plan_day_stats')
    .select('trade_date')
    .where('horizon', '=', horizon)
    .orderBy('trade_date')
    .execute()
  return rows.map((r) => r.trade_date)
}

async function outcomeDays(t: TestDatabase, horizon: number): Promise<string[]> {
  const rows = await t.db
    .selectFrom('plan_outcomes')
    .select('trade_date')
    .distinct()
    .where('horizon', '=', horizon)
    .orderBy('trade_date')
    .execute()
  return rows.map((r) => r.trade_date)
}

describe('evaluate from stored per-day statistics (issue 28)', () => {
  let t: TestDatabase
  let demo: DemoMarket
  beforeAll(async () => {
    ;[t, demo] = await createDemoDatabase(WEEKS_OF_PLANS)
    // a second index with other returns: statistics counted against the first do not hold for it
    await sql`insert into index_bars (code, trade_date, open, high, low, close, volume, amount)
      select ${OTHER_INDEX}, trade_date, open, high, low, close * (1 + 0.003 * sin(extract(doy from trade_date))),
        volume, amount
      from index_bars where code = ${DEFAULT_BENCHMARK}`.execute(t.db)
  }, 180_000)
  afterAll(async () => {
    await demo.cleanup()
    await t.drop()
  })

  it('the outcomes step stored every plan day, and the record from them is the row-by-row record', async () => {
    for (const horizon of HORIZONS) {
      const days = await outcomeDays(t, horizon)
      expect(days.length).toBeGreaterThan(horizon === 20 ? 2 : 10)
      expect(await storedDays(t, horizon)).toEqual(days)
      const query = { horizon, benchmark: DEFAULT_BENCHMARK }
      expectSameRecord(await demo.services.trackRecord.evaluate(query), await rowByRow(t, query))
    }
  })

  it('a date range reads only its days and matches the row-by-row record of that range', async () => {
    const days = await outcomeDays(t, 5)
    const query = { horizon: 5, benchmark: DEFAULT_BENCHMARK, from: days[3]!, to: days[8]! }
    const record = await demo.services.trackRecord.evaluate(query)
    expect(record.days).toBe(6)
    expectSameRecord(record, await rowByRow(t, query))
  })

  it('another benchmark: the hits are counted again from the rows, not taken from the stored days', async () => {
    const query = { horizon: 5, benchmark: OTHER_INDEX }
    const record = await demo.services.trackRecord.evaluate(query)
    expectSameRecord(record, await rowByRow(t, query))
    const stored = await demo.services.trackRecord.evaluate({ horizon: 5, benchmark: DEFAULT_BENCHMARK })
    expect(record.groups.decision.map((g) => g.hit_rate)).not.toEqual(stored.groups.decision.map((g) => g.hit_rate))
  })

  it('a benchmark bar corrected after the statistics were written: the days it touches are counted again', async () => {
    const query = { horizon: 1, benchmark: DEFAULT_BENCHMARK }
    const days = await outcomeDays(t, 1)
    const entry = (await demo.services.trackRecord.evaluate(query)).portfolio.days.findIndex((d) => d.date === days[5])
    expect(entry).toBe(5)
    // h = 1: the window of plan day 5 opens and closes on plan day 6, whose close moves
    await t.db
      .updateTable('index_bars')
      .set((eb) => ({ close: eb('close', '*', 1.05) }))
      .where('code', '=', DEFAULT_BENCHMARK)
      .where('trade_date', '=', days[6]!)
      .execute()
    const record = await demo.services.trackRecord.evaluate(query)
    expectSameRecord(record, await rowByRow(t, query))
    expect(await storedDays(t, 1)).toEqual(days)
  })

  it('a day whose tier rows change loses its statistics, is summarised from its new rows, and is stored again', async () => {
    const days = await outcomeDays(t, 5)
    const changed = days[4]!
    const before = await demo.services.trackRecord.evaluate({ horizon: 5, benchmark: DEFAULT_BENCHMARK })
    await t.db
      .updateTable('tier_scores')
      .set((eb) => ({ score: eb('score', '*', -1) }))
      .where('trade_date', '=', changed)
      .execute()
    for (const horizon of HORIZONS) expect(await storedDays(t, horizon)).not.toContain(changed)

    const query = { horizon: 5, benchmark: DEFAULT_BENCHMARK }
    const after = await demo.services.trackRecord.evaluate(query)
    expectSameRecord(after, await rowByRow(t, query))
    const icOn = (r: TrackRecord) => r.ic.daily.find((d) => d.date === changed)!.score
    expect(icOn(after)).toBeCloseTo(-icOn(before)!, 12)

    const result = await demo.services.steps.outcomes({}, signal)
    expect(result.written).toMatchObject({ stats5: 1 })
    expect(await storedDays(t, 5)).toEqual(days)
    expectSameRecord(await demo.services.trackRecord.evaluate(query), await rowByRow(t, query))
  })
})
