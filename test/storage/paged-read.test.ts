import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from '../../src/logger.js'
import { createDb } from '../../src/storage/db.js'
import { readPaged } from '../../src/storage/paged-read.js'
import { runCli } from '../support/cli-process.js'
import { startCuttingProxy } from '../support/cutting-proxy.js'
import { createDemoDatabase } from '../support/demo-market.js'
import { insertSecurities } from '../support/securities.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'

describe('readPaged: a large result a page at a time', () => {
  let t: TestDatabase
  const codes = Array.from({ length: 1234 }, (_, i) => `${String(i).padStart(6, '0')}.SZ`)
  beforeAll(async () => {
    t = await createTestDatabase()
    await insertSecurities(t.db, codes)
  })
  afterAll(async () => t.drop())

  const query = () => t.db.selectFrom('securities').selectAll().orderBy('code')

  it('gives the rows execute() gives, with our type parsers (a DATE stays an ISO string)', async () => {
    const paged = await readPaged(query(), 100)
    expect(paged).toEqual(await query().execute())
    expect(paged).toHaveLength(1234)
    expect(paged[0]!.list_date).toBe('2020-01-02')
  })

  it('reads one page per round trip, and the event loop gets turns between pages', async () => {
    let turns = 0
    let ticking = true
    const tick = () => {
      if (!ticking) return
      turns++
      setImmediate(tick)
    }
    setImmediate(tick)
    await readPaged(query(), 100)
    ticking = false
    // 13 pages (12 full, one of 34): the loop turned at least once per round trip
    expect(turns).toBeGreaterThanOrEqual(13)
  })

  it('fails at once when its connection is lost between pages, instead of hanging, and the pool carries on', async () => {
    // the second page sleeps on one row; the backend serving it is terminated meanwhile (as when the store dies)
    const slowSecondPage = t.db
      .selectFrom('securities')
      .select(['code', sql<string>`pg_sleep(case when code = '000150.SZ' then 30 else 0 end)::text`.as('slept')])
      .orderBy('code')
    const reading = readPaged(slowSecondPage, 100).then(
      () => 'finished',
      (err: Error) => err.message,
    )
    let sleeper: number | undefined
    for (let tries = 0; sleeper === undefined && tries < 500; tries++) {
      const { rows } = await sql<{ pid: number }>`
        select pid from pg_stat_activity where wait_event = 'PgSleep' and datname = current_database()`.execute(t.db)
      sleeper = rows[0]?.pid
      if (sleeper === undefined) await new Promise((r) => setTimeout(r, 20))
    }
    expect(sleeper, 'the read reached its slow page').toBeDefined()
    await sql`select pg_terminate_backend(${sleeper})`.execute(t.db)
    // before the fix the read never settled: pg-cursor's close waited for an answer from a closed socket
    const outcome = await Promise.race([
      reading,
      new Promise((r) => setTimeout(() => r('still reading after 10 s'), 10_000).unref()),
    ])
    // the message is pg's or the socket's, depending on which of them notices first
    expect(['finished', 'still reading after 10 s']).not.toContain(outcome)
    // nothing is held up (a first query may still meet the terminated connection before pg has seen it close)
    const afterwards = await query()
      .execute()
      .catch(() => query().execute())
    expect(afterwards).toHaveLength(1234)
  })

  it('fails when its connection is lost after the last rows but before the server is ready again', async () => {
    // pg reports a lost connection to a cursor only until the cursor is done, which it is on the last rows'
    // CommandComplete; the read's answer waits for the ReadyForQuery after it
    const proxy = await startCuttingProxy(t.url)
    const { db } = createDb(proxy.url, createLogger({ logLevel: 'silent' }), { max: 1 })
    try {
      await db.selectFrom('securities').select('code').limit(1).execute() // connected, through the proxy
      proxy.arm()
      const reading = readPaged(db.selectFrom('securities').select('code').where('code', '<', '000010.SZ'), 100)
      const outcome = await Promise.race([
        reading.then(
          (rows) => `${rows.length} rows`,
          (err: Error) => err.message,
        ),
        new Promise((r) => setTimeout(() => r('still reading after 10 s'), 10_000).unref()),
      ])
      expect(outcome).toBe('Connection terminated unexpectedly')
      expect(await db.selectFrom('securities').select('code').execute()).toHaveLength(1234)
    } finally {
      await db.destroy()
      await proxy.close()
    }
  })

  it('leaves no query deadline armed: a command that read pages exits as soon as it is done', async () => {
    // pg arms a timer per query (query_timeout, 121 s for a CLI) and disarms it in the query's callback, which
    // pg-cursor never calls: the build (financials are read in pages) then finished but its process lived on
    const [demo, market] = await createDemoDatabase({ stocks: 150, days: 70, history: 1 })
    try {
      const date = market.calendar.at(-1)!
      const run = await runCli(
        ['build', '--date', date],
        { DATABASE_URL: demo.url, ...market.env },
        { timeoutMs: 30_000 },
      )
      expect(run.code, run.output).toBe(0)
      expect(run.ms, run.output).toBeLessThan(15_000)
    } finally {
      await market.cleanup()
      await demo.drop()
    }
  })
})
