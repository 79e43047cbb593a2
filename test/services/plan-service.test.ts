import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServices } from '../../src/compose.js'
import { createLogger } from '../../src/logger.js'
import { createPlanService } from '../../src/services/plan.service.js'
import { createPlanDays } from '../../src/services/plan-days.js'
import { testConfig } from '../support/config.js'
import { createDemoDatabase, type DemoMarket } from '../support/demo-market.js'
import type { TestDatabase } from '../support/test-db.js'

const run = promisify(execFile)

describe('plan service on the demo market', () => {
  let t: TestDatabase
  let demo: DemoMarket
  beforeAll(async () => {
    ;[t, demo] = await createDemoDatabase({ history: 3, skipLast: 2 })
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

  /** A plan service over the demo's files and store with its own clock, and counts of what it read. */
  function counted(
    base: ReturnType<typeof services>,
    options: {
      fromSnapshot?: boolean
      clock?: () => number
      latest?: () => { known: true; value: string | undefined } | { known: false }
      assembleFull?: (date: string) => ReturnType<typeof base.assembler.assembleFull>
    } = {},
  ) {
    const reads = { snapshot: 0, stat: 0, assembly: 0 }
    const now = options.clock ?? (() => 1_000_000)
    const date = demo.planned.at(-1)!
    const days = createPlanDays({
      assembler: {
        assembleFull: (d) => {
          reads.assembly++
          return (options.assembleFull ?? ((x: string) => base.assembler.assembleFull(x)))(d)
        },
      },
      files: {
        readSnapshot: (d) => {
          reads.snapshot++
          return base.files.readSnapshot(d)
        },
        snapshotStamp: (d) => {
          reads.stat++
          return base.files.snapshotStamp(d)
        },
      },
      fromSnapshot: options.fromSnapshot ?? true,
      log: base.log,
      now,
    })
    const plans = createPlanService({
      days,
      files: base.files,
      latestDate: { get: async () => date, peek: options.latest ?? (() => ({ known: false })) },
      log: base.log,
      cacheSec: 60,
      now,
    })
    return { plans, reads }
  }

  it('does not make a request for another date wait for a slow assembly', async () => {
    const base = services({ PLAN_FROM_SNAPSHOT: 'no' })
    const [slowDate, fastDate] = demo.planned as [string, string]
    let release: () => void = () => undefined
    const gate = new Promise<void>((r) => {
      release = r
    })
    const { plans } = counted(base, {
      fromSnapshot: false,
      assembleFull: async (date) => {
        if (date === slowDate) await gate
        return base.assembler.assembleFull(date)
      },
    })
    const sizes = { top: 20, obs_top: 10, theme_cap: 5 }
    const order: string[] = []
    const slow = plans.getPlan({ date: slowDate, sizes, nocache: false }).then(() => order.push(slowDate))
    await plans.getPlan({ date: fastDate, sizes, nocache: false }).then(() => order.push(fastDate))
    release()
    await slow
    expect(order).toEqual([fastDate, slowDate])
    await base.close()
  })

  it("reads a day's snapshot once for every size, the verdicts' _full and the per-request part", async () => {
    const base = services()
    let clock = 1_000_000
    const { plans, reads } = counted(base, { clock: () => clock })
    const date = demo.planned.at(-1)!
    for (const top of [20, 5, 7])
      await plans.getPlan({ date, sizes: { top, obs_top: 10, theme_cap: 5 }, nocache: false })
    await plans.getFull(date)
    expect(reads).toEqual({ snapshot: 1, stat: 1, assembly: 0 })
    clock += 1000 // the per-request part is re-checked with a stat, and not re-read while the file is unchanged
    const again = await plans.getPlan({ date, sizes: { top: 5, obs_top: 10, theme_cap: 5 }, nocache: false })
    expect(again.cache).toBe('hit')
    expect(reads).toEqual({ snapshot: 1, stat: 2, assembly: 0 })
    await plans.getPlan({ date, sizes: { top: 5, obs_top: 10, theme_cap: 5 }, nocache: true })
    expect(reads.snapshot).toBe(2) // nocache reads the day anew
    await base.close()
  })

  it('forget drops one date or everything, and a load racing it is not kept', async () => {
    const base = services()
    const [older, date] = demo.planned.slice(-2) as [string, string]
    let release: () => void = () => undefined
    let gated = false
    const gate = new Promise<void>((r) => {
      release = r
    })
    const { plans } = counted(base, {
      fromSnapshot: false,
      assembleFull: async (d) => {
        if (gated) await gate
        return base.assembler.assembleFull(d)
      },
    })
    const sizes = { top: 20, obs_top: 10, theme_cap: 5 }
    await plans.getPlan({ date: older, sizes, nocache: false })
    await plans.getPlan({ date, sizes, nocache: false })
    plans.forget(date)
    expect(plans.cacheKeys()).toEqual([`${older}|20|10|5`])
    expect((await plans.getPlan({ date: older, sizes, nocache: false })).cache).toBe('hit')
    gated = true
    const racing = plans.getPlan({ date, sizes: { ...sizes, top: 3 }, nocache: false })
    await new Promise((r) => setImmediate(r)) // the load has started and waits in the assembler
    plans.forget(date) // e.g. the date's plan was rewritten meanwhile
    release()
    expect((await racing).cache).toBe('miss')
    expect(plans.cacheKeys()).toEqual([`${older}|20|10|5`])
    plans.forget()
    expect(plans.cacheKeys()).toEqual([])
    await base.close()
  })

  it('answers a hit without waiting only when the date is known, the cut cached and the snapshot checked within a second', async () => {
    const base = services()
    let clock = 1_000_000
    const date = demo.planned.at(-1)!
    let latest: { known: true; value: string | undefined } | { known: false } = { known: false }
    const { plans } = counted(base, { clock: () => clock, latest: () => latest })
    const sizes = { top: 20, obs_top: 10, theme_cap: 5 }
    expect(plans.cachedPlan({ date, sizes })).toBeUndefined() // nothing cached yet
    const miss = await plans.getPlan({ date, sizes, nocache: false })
    const hit = plans.cachedPlan({ date, sizes })
    expect(hit?.cache).toBe('hit')
    expect(hit?.plan).toBe(miss.plan) // the very same cut
    expect(hit?.snapshot).toBe(miss.snapshot)
    expect(plans.cachedPlan({ sizes })).toBeUndefined() // the latest date is not known without a query
    latest = { known: true, value: date }
    expect(plans.cachedPlan({ sizes })?.plan).toBe(miss.plan)
    // the same sizes object, asked again as the latest date moves, gets each date's own cut
    const older = demo.planned.at(-2)!
    const olderMiss = await plans.getPlan({ date: older, sizes, nocache: false })
    latest = { known: true, value: older }
    expect(plans.cachedPlan({ sizes })?.plan).toBe(olderMiss.plan)
    latest = { known: true, value: date }
    expect(plans.cachedPlan({ sizes })?.plan).toBe(miss.plan)
    latest = { known: true, value: undefined } // an empty tier table: getPlan answers it
    expect(plans.cachedPlan({ sizes })).toBeUndefined()
    expect(plans.cachedPlan({ date, sizes: { ...sizes, top: 7 } })).toBeUndefined()
    clock += 1000 // the snapshot's state is due for a re-check (a stat): not without waiting
    expect(plans.cachedPlan({ date, sizes })).toBeUndefined()
    const rechecked = await plans.getPlan({ date, sizes, nocache: false })
    expect(rechecked.cache).toBe('hit')
    expect(rechecked.snapshot).toBe(miss.snapshot) // the file is unchanged: the same state object
    expect(plans.cachedPlan({ date, sizes })?.plan).toBe(miss.plan)
    clock += 60_000 // PLAN_CACHE_SEC=60 has passed
    expect(plans.cachedPlan({ date, sizes })).toBeUndefined()
    expect((await plans.getPlan({ date, sizes, nocache: false })).cache).toBe('miss')
    await base.close()
  })

  it('re-checks a due snapshot once for all the requests that find it due meanwhile', async () => {
    const base = services()
    let clock = 1_000_000
    const date = demo.planned.at(-1)!
    const { plans, reads } = counted(base, { clock: () => clock })
    const sizes = { top: 20, obs_top: 10, theme_cap: 5 }
    const miss = await plans.getPlan({ date, sizes, nocache: false })
    const statsAfterMiss = reads.stat
    clock += 1000
    const answers = await Promise.all(Array.from({ length: 20 }, () => plans.getPlan({ date, sizes, nocache: false })))
    expect(reads.stat - statsAfterMiss).toBe(1)
    for (const answer of answers) {
      expect(answer.cache).toBe('hit')
      expect(answer.snapshot).toBe(miss.snapshot)
    }
    // the next due check is a new one
    clock += 1000
    await plans.getPlan({ date, sizes, nocache: false })
    expect(reads.stat - statsAfterMiss).toBe(2)
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
