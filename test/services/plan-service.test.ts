import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServices } from '../../src/compose.js'
import { createLogger } from '../../src/logger.js'
import { createPlanService } from '../../src/services/plan.service.js'
import { createSnapshotMeta } from '../../src/services/snapshot-meta.js'
import { testConfig } from '../support/config.js'
import { type DemoMarket, seedDemoMarket } from '../support/demo-market.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'

const run = promisify(execFile)

describe('plan service on the demo market', () => {
  let t: TestDatabase
  let demo: DemoMarket
  beforeAll(async () => {
    t = await createTestDatabase()
    demo = await seedDemoMarket(t, { history: 3, skipLast: 2 })
  })
  afterAll(async () => {
    await demo.cleanup()
    await t.drop()
  })

  function services(env: Record<string, string> = {}, listen = false) {
    const config = testConfig({ ...demo.env, ...env })
    return createServices(config, createLogger(config), t, { listen })
  }

  it('cutting the snapshot gives the same main and observe as live assembly for any sizes and date', async () => {
    const fromSnapshot = services({ PLAN_CACHE_SEC: '0' })
    const live = services({ PLAN_CACHE_SEC: '0', PLAN_FROM_SNAPSHOT: 'false' })
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...demo.planned),
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 1, max: 50 }),
        async (date, top, obs_top, theme_cap) => {
          const sizes = { top, obs_top, theme_cap }
          const a = await fromSnapshot.plans.getPlan({ date, sizes, nocache: true })
          const b = await live.plans.getPlan({ date, sizes, nocache: true })
          expect(a.source).toBe('snapshot')
          expect(b.source).toBe('live')
          expect(b.body.main).toEqual(a.body.main)
          expect(b.body.observe).toEqual(a.body.observe)
          expect(b.body.card_counts).toEqual(a.body.card_counts)
        },
      ),
      { numRuns: 40 },
    )
    await fromSnapshot.close()
    await live.close()
  })

  it('does not make a request for another date wait for a slow assembly', async () => {
    const base = services({ PLAN_FROM_SNAPSHOT: 'no' })
    const [slowDate, fastDate] = demo.planned as [string, string]
    const plans = createPlanService({
      assembler: {
        assembleFull: async (date) => {
          if (date === slowDate) await new Promise((r) => setTimeout(r, 1500))
          return base.assembler.assembleFull(date)
        },
      },
      files: base.files,
      snapshots: base.snapshots,
      latestDate: base.latestDate,
      log: base.log,
      fromSnapshot: false,
      cacheSec: 60,
    })
    const sizes = { top: 20, obs_top: 10, theme_cap: 5 }
    const order: string[] = []
    await Promise.all([
      plans.getPlan({ date: slowDate, sizes, nocache: false }).then(() => order.push(slowDate)),
      plans.getPlan({ date: fastDate, sizes, nocache: false }).then(() => order.push(fastDate)),
    ])
    expect(order).toEqual([fastDate, slowDate])
    await base.close()
  })

  it('answers a hit without waiting only when the date is known, the cut cached and the snapshot checked within a second', async () => {
    const base = services()
    let clock = 1_000_000
    const date = demo.planned.at(-1)!
    let latest: { known: true; value: string | undefined } | { known: false } = { known: false }
    const plans = createPlanService({
      assembler: base.assembler,
      files: base.files,
      snapshots: createSnapshotMeta({ files: base.files, log: base.log, now: () => clock }),
      latestDate: { get: async () => date, peek: () => latest, invalidate: () => undefined, close: async () => {} },
      log: base.log,
      fromSnapshot: true,
      cacheSec: 60,
      now: () => clock,
    })
    const sizes = { top: 20, obs_top: 10, theme_cap: 5 }
    expect(plans.cachedPlan({ date, sizes })).toBeUndefined() // nothing cached yet
    const miss = await plans.getPlan({ date, sizes, nocache: false })
    const hit = plans.cachedPlan({ date, sizes })
    expect(hit?.cache).toBe('hit')
    expect(hit?.bytes).toBe(miss.bytes) // the very same buffer
    expect(plans.cachedPlan({ sizes })).toBeUndefined() // the latest date is not known without a query
    latest = { known: true, value: date }
    expect(plans.cachedPlan({ sizes })?.bytes).toBe(miss.bytes)
    latest = { known: true, value: undefined } // an empty tier table: getPlan answers it
    expect(plans.cachedPlan({ sizes })).toBeUndefined()
    expect(plans.cachedPlan({ date, sizes: { ...sizes, top: 7 } })).toBeUndefined()
    clock += 1000 // the snapshot's state is due for a re-check (a stat): not without waiting
    expect(plans.cachedPlan({ date, sizes })).toBeUndefined()
    expect((await plans.getPlan({ date, sizes, nocache: false })).cache).toBe('hit')
    expect(plans.cachedPlan({ date, sizes })?.bytes).toBe(miss.bytes)
    await base.close()
  })

  it("drops a date's cached plans when any process rewrites that date's plan", async () => {
    const s = services({}, true)
    const date = demo.planned.at(-1)!
    const sizes = { top: 20, obs_top: 10, theme_cap: 5 }
    const first = await s.plans.getPlan({ date, sizes, nocache: false })
    expect((await s.plans.getPlan({ date, sizes, nocache: false })).cache).toBe('hit')
    await s.steps.plan({ date }, new AbortController().signal)
    const afterOwn = await s.plans.getPlan({ date, sizes, nocache: false })
    expect(afterOwn.cache).toBe('miss')
    expect(afterOwn.body.generated_at).not.toBe(first.body.generated_at)

    await run(process.execPath, ['bin/stockplan.js', 'plan', '--date', date], {
      env: { ...process.env, DATABASE_URL: t.url, PLAN_DATA_DIR: demo.planDataDir, LOG_LEVEL: 'silent' },
    })
    const deadline = Date.now() + 5000
    let latest = await s.plans.getPlan({ date, sizes, nocache: false })
    while (latest.cache === 'hit' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50))
      latest = await s.plans.getPlan({ date, sizes, nocache: false })
    }
    expect(latest.cache).toBe('miss')
    expect(latest.body.generated_at).not.toBe(afterOwn.body.generated_at)
    await s.close()
  })

  it('sees a new data date at once, from this process and from another one', async () => {
    const s = services({}, true)
    const sizes = { top: 20, obs_top: 10, theme_cap: 5 }
    expect((await s.plans.getPlan({ sizes, nocache: false })).body.date).toBe(demo.planned.at(-1))
    const next = demo.calendar.at(-2)!
    await s.steps.build({ date: next }, new AbortController().signal)
    const after = await s.plans.getPlan({ sizes, nocache: false })
    expect(after.body.date).toBe(next)
    expect(after.cache).toBe('miss')

    const last = demo.calendar.at(-1)!
    await run(process.execPath, ['bin/stockplan.js', 'build', '--date', last], {
      env: { ...process.env, DATABASE_URL: t.url, PLAN_DATA_DIR: demo.planDataDir, LOG_LEVEL: 'silent' },
    })
    const deadline = Date.now() + 5000
    let seen = ''
    while (Date.now() < deadline && seen !== last) {
      seen = (await s.plans.getPlan({ sizes, nocache: false })).body.date
      if (seen !== last) await new Promise((r) => setTimeout(r, 50))
    }
    expect(seen).toBe(last)
    await s.close()
  })
})
