import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServices } from '../../src/compose.js'
import { createLogger } from '../../src/logger.js'
import { TIER_DATES_CHANNEL } from '../../src/storage/store-changes.js'
import { testConfig } from '../support/config.js'
import { createDemoDatabase, type DemoMarket } from '../support/demo-market.js'
import type { TestDatabase } from '../support/test-db.js'

describe('lookups kept per date', () => {
  let t: TestDatabase
  let demo: DemoMarket
  beforeAll(async () => {
    ;[t, demo] = await createDemoDatabase({ history: 1 })
  })
  afterAll(async () => {
    await demo.cleanup()
    await t.drop()
  })

  it('are dropped when any process changes the tier table (its NOTIFY), and not before', async () => {
    const config = testConfig(demo.env)
    const s = createServices(config, createLogger(config), t, { listen: true })
    const date = demo.planned.at(-1)!
    const [code] = (
      await t.db.selectFrom('stock_daily').select('code').where('trade_date', '=', date).limit(1).execute()
    ).map((r) => r.code)
    const state = async () =>
      ((await s.logicStates.lookup({ codes: [code!], date })).states[0] as { source: string }).source
    const stored = await t.db
      .selectFrom('stock_daily')
      .selectAll()
      .where('code', '=', code!)
      .where('trade_date', '=', date)
      .execute()
    try {
      // the LISTEN connection is up once the latest date is known without a query
      for (let i = 0; i < 100 && !s.latestDate.peek().known; i++) {
        await s.latestDate.get()
        await new Promise((r) => setTimeout(r, 50))
      }
      expect(s.latestDate.peek().known).toBe(true)
      expect(await state()).toBe('daily')
      await t.db.deleteFrom('stock_daily').where('code', '=', code!).where('trade_date', '=', date).execute()
      expect(await state()).toBe('daily') // kept: nothing said the date changed
      await sql`select pg_notify(${TIER_DATES_CHANNEL}, '')`.execute(t.db) // what the tier table's trigger sends
      const deadline = Date.now() + 5000
      let seen = await state()
      while (seen === 'daily' && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50))
        seen = await state()
      }
      expect(seen).toBe('computed')
    } finally {
      await t.db.insertInto('stock_daily').values(stored).execute()
      await s.close()
    }
  })
})
