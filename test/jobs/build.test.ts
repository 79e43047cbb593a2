import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SIGNAL_DEFINITIONS } from '../../src/domain/signal-definitions.js'
import { createDemoDatabase, type DemoMarket } from '../support/demo-market.js'
import type { TestDatabase } from '../support/test-db.js'

describe('build job', () => {
  let t: TestDatabase
  let demo: DemoMarket
  beforeAll(async () => {
    ;[t, demo] = await createDemoDatabase({ stocks: 200, days: 70, history: 1 })
  })
  afterAll(async () => {
    await demo.cleanup()
    await t.drop()
  })

  const signal = new AbortController().signal
  const stale = async (date: string) =>
    (
      await t.db
        .selectFrom('builds')
        .select('stale')
        .where('trade_date', '=', date)
        .orderBy('finished_at', 'desc')
        .executeTakeFirstOrThrow()
    ).stale

  it('records complete inputs with an empty stale text and replaces the date on a rerun', async () => {
    const date = demo.calendar.at(-1)!
    const first = await demo.services.steps.build({ date }, signal)
    expect(await stale(date)).toBe('')
    // 70 days of bars: medium-term momentum needs 121, and the build says it had no data for it
    expect(first.summary).toMatch(/; no data for signals momentum_6m_skip_1m \(they carry no weight today\)$/)
    const second = await demo.services.steps.build({ date }, signal)
    expect(second.buildId).not.toBe(first.buildId)
    const rows = await t.db.selectFrom('tier_scores').select(['build_id']).where('trade_date', '=', date).execute()
    expect(rows.length).toBe((first.counts as { scored: number }).scored)
    expect(new Set(rows.map((r) => r.build_id))).toEqual(new Set([second.buildId]))
  })

  it("point in time: bars after T and signal ICs realised after T change neither T's scores nor its weights", async () => {
    const date = demo.calendar.at(-8)!
    const snapshot = async () => ({
      rows: (
        await t.db.selectFrom('tier_scores').selectAll().where('trade_date', '=', date).orderBy('code').execute()
      ).map(({ build_id: _id, ...r }) => r),
      weights: (
        await t.db
          .selectFrom('builds')
          .select('weights')
          .where('trade_date', '=', date)
          .orderBy('finished_at', 'desc')
          .executeTakeFirstOrThrow()
      ).weights,
    })
    await demo.services.steps.build({ date }, signal)
    const before = await snapshot()
    // the future rewritten: every later bar moves, and 30 plan days of ICs whose exits lie on or after T appear
    await t.db
      .updateTable('daily_bars')
      .set((eb) => ({ close: eb('close', '*', 1.37), amount: eb('amount', '*', 0.2), volume: eb('volume', '*', 5) }))
      .where('trade_date', '>', date)
      .execute()
    // exits from T itself on: the chain writes the ICs whose exit is T after the first build of T
    const later = demo.calendar.filter((d) => d >= date)
    await t.db
      .insertInto('signal_ic')
      .values(
        demo.calendar.slice(-40, -10).flatMap((d, i) =>
          [
            { trade_date: d, horizon: 5, signal: 'reversal_5d', exit_date: later[i % later.length]!, ic: -0.9, n: 100 },
            { trade_date: d, horizon: 5, signal: 'size', exit_date: later[i % later.length]!, ic: 0.9, n: 100 },
          ].map((row) => ({ ...row, definitions: SIGNAL_DEFINITIONS })),
        ),
      )
      .onConflict((oc) => oc.doNothing())
      .execute()
    await demo.services.steps.build({ date }, signal)
    const after = await snapshot()
    expect(after.rows).toEqual(before.rows)
    expect(after.weights).toEqual(before.weights)
    expect(before.rows.length).toBeGreaterThan(100)
  })

  it('says why inputs were incomplete: missing bars and old theme events', async () => {
    const date = demo.calendar.at(-1)!
    const codes = (
      await t.db.selectFrom('daily_bars').select('code').where('trade_date', '=', date).limit(3).execute()
    ).map((r) => r.code)
    await t.db.deleteFrom('daily_bars').where('trade_date', '=', date).where('code', 'in', codes).execute()
    const cutoff = demo.calendar.at(-10)!
    await t.db.deleteFrom('theme_events').where('trade_date', '>', cutoff).execute()
    const result = await demo.services.steps.build({ date }, signal)
    expect(result.stale).toMatch(/3 listed stocks have no bar on/)
    expect(result.stale).toMatch(new RegExp(`theme events last on ${cutoff}`))
    expect(await stale(date)).toBe(result.stale)
  })

  it('refuses a date without bars with what to do', async () => {
    await expect(demo.services.steps.build({ date: '2001-01-02' }, signal)).rejects.toThrow(
      /no daily bars on 2001-01-02: import/,
    )
  })
})
