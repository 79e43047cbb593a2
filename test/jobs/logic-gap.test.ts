import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDemoDatabase, type DemoMarket } from '../support/demo-market.js'
import type { TestDatabase } from '../support/test-db.js'

/** The plan job seeds each code from its latest stored state, whatever its date: a skipped day is no reset. */
describe('plan job: logic states across a skipped plan day', () => {
  let t: TestDatabase
  let demo: DemoMarket
  const signal = new AbortController().signal
  beforeAll(async () => {
    ;[t, demo] = await createDemoDatabase({ stocks: 150, days: 80, history: 6, skipLast: 2 })
  })
  afterAll(async () => {
    await demo.cleanup()
    await t.drop()
  })

  const rows = (date: string) =>
    t.db.selectFrom('stock_daily').selectAll().where('trade_date', '=', date).orderBy('code').execute()

  it('steps the missed tier date from its tier rows, so states, dates in state and EMAs carry on', async () => {
    const [skipped, today] = demo.calendar.slice(-2) as [string, string]
    const before = demo.planned.at(-1)!
    // the build ran on the skipped day (tier rows exist) but its plan job did not
    await demo.services.steps.build({ date: skipped }, signal)
    await demo.services.chain({ date: today }, signal)
    const stored = new Map((await rows(before)).map((r) => [r.code, r]))
    const now = await rows(today)
    expect(now.length).toBeGreaterThan(100)
    let carried = 0
    let stepped = 0
    for (const row of now) {
      const prev = stored.get(row.code)
      if (!prev) continue
      // a reset would start the code afresh today
      expect(row.state_since === today && row.state_rule === 'forming: first day tracked', row.code).toBe(false)
      if (row.logic_state === prev.logic_state && row.state_since === prev.state_since) {
        carried++
        // two steps since the stored row (the missed day and today); a suspended day keeps the memory as it was
        expect(row.days_in_state - prev.days_in_state, row.code).toBeGreaterThanOrEqual(0)
        expect(row.days_in_state - prev.days_in_state, row.code).toBeLessThanOrEqual(2)
        if (row.days_in_state === prev.days_in_state + 2) stepped++
      }
    }
    expect(carried).toBeGreaterThan(now.length / 2)
    expect(stepped).toBeGreaterThan(carried / 2)

    // the same day planned with the missed day in between equals planning both days in turn
    await demo.services.chain({ date: skipped }, signal)
    await demo.services.chain({ date: today }, signal)
    const stepwise = await rows(today)
    const pick = (r: (typeof now)[number]) => [r.code, r.logic_state, r.state_since, r.days_in_state, r.pct_ema]
    expect(stepwise.map(pick)).toEqual(now.map(pick))
  })
})
