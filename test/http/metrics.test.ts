import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createOperationalSource, createServices } from '../../src/compose.js'
import { buildApp } from '../../src/http/app.js'
import { createLogger } from '../../src/logger.js'
import { createScheduler, mountScheduler } from '../../src/scheduler-wiring.js'
import { createMetrics } from '../../src/services/metrics.js'
import { buildTestApp, type TestApp } from '../support/app.js'
import { testConfig } from '../support/config.js'
import { createDemoDatabase, type DemoMarket } from '../support/demo-market.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'
import { within } from '../support/wait.js'

function counter(text: string, name: string, labels: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(labels))
  return line ? Number(line.split(' ').at(-1)) : Number.NaN
}

describe('GET /metrics', () => {
  let t: TestDatabase
  let demo: DemoMarket
  let built: TestApp
  let app: Awaited<ReturnType<typeof buildApp>>
  const metrics = createMetrics()

  beforeAll(async () => {
    ;[t, demo] = await createDemoDatabase({ history: 1 })
    built = await buildTestApp(t, demo.env, { observe: metrics.plan })
    app = await buildApp({ ...built.services, metrics })
  })
  afterAll(async () => {
    await app.close()
    await built.close()
    await demo.cleanup()
    await t.drop()
  })

  it('shows cache, source, request and process metrics moving under load', async () => {
    const before = (await app.inject('/metrics')).body
    expect(counter(before, 'plan_cache_total', 'result="hit"')).toBe(0)
    for (let i = 0; i < 5; i++) await app.inject('/plan')
    await app.inject('/plan?nocache=1')
    await app.inject('/plan/dates')
    const res = await app.inject('/metrics')
    expect(res.headers['content-type']).toMatch(/^text\/plain/)
    const text = res.body
    expect(counter(text, 'plan_cache_total', 'result="miss"')).toBe(2)
    expect(counter(text, 'plan_cache_total', 'result="hit"')).toBe(4)
    expect(counter(text, 'plan_source_total', 'source="snapshot"')).toBe(2)
    expect(counter(text, 'http_requests_total', 'route="/plan",method="GET",status="200"')).toBe(6)
    expect(counter(text, 'http_requests_total', 'route="/plan/dates",method="GET",status="200"')).toBe(1)
    expect(text).toContain('http_request_duration_seconds_bucket')
    expect(text).toContain('process_resident_memory_bytes')
    expect(text).toContain('callback_outbox_depth 0')
    expect(text).toContain('plan_live_assembly_seconds_count')
  })
  it('counts each request once under its route, HEAD apart, and requests no route matched as unmatched', async () => {
    const count = async (labels: string) => counter((await app.inject('/metrics')).body, 'http_requests_total', labels)
    const head = 'route="/plan",method="HEAD",status="200"'
    const notFound = 'route="unmatched",method="GET",status="404"'
    const notAllowed = 'route="unmatched",method="DELETE",status="405"'
    const repeated = 'route="/plan",method="GET",status="422"'
    const before = await Promise.all([head, notFound, notAllowed, repeated].map(count))
    expect((await app.inject({ method: 'HEAD', url: '/plan' })).statusCode).toBe(200)
    expect((await app.inject('/no-such-path')).statusCode).toBe(404)
    expect((await app.inject('/no-such-path')).statusCode).toBe(404)
    expect((await app.inject({ method: 'DELETE', url: '/plan' })).statusCode).toBe(405)
    // the query checks are bound to the route: a repeated parameter is still refused before the schema coerces it
    const twice = await app.inject('/plan?top=5&top=6')
    expect(twice.statusCode).toBe(422)
    expect(twice.json().detail).toBe('top must be given once, not 2 times')
    const after = await Promise.all([head, notFound, notAllowed, repeated].map(count))
    const moved = after.map((n, i) => n - (Number.isNaN(before[i]!) ? 0 : before[i]!))
    expect(moved).toEqual([1, 2, 1, 1])
  })
})

describe('GET /metrics with the scheduler on and the store frozen', () => {
  it('answers each scrape within the reading deadline while callback_outbox is locked, the store shown down', async () => {
    const t = await createTestDatabase()
    const config = testConfig({ XXLJOB_ACCESS_TOKEN: 'metrics-test-token-7c1d' })
    const services = createServices(config, createLogger({ logLevel: 'silent' }), t)
    const metrics = createMetrics({ defaults: false })
    let nowMs = Date.parse('2026-10-09T01:00:00Z')
    metrics.setOperationalSource(createOperationalSource(services, () => nowMs))
    const executor = createScheduler(services, metrics)!
    const app = await buildApp({ ...services, metrics, extraPlugins: [mountScheduler(executor)] })
    // a transaction holding the outbox table: every count of it waits until the transaction ends
    const locker = new pg.Client({ connectionString: t.url })
    await locker.connect()
    try {
      expect((await app.inject('/metrics')).body).toContain('callback_outbox_depth 0')
      await locker.query('begin; lock table callback_outbox in access exclusive mode')
      nowMs += 10_000 // past the operational read's lifetime: the scrapes read the store again
      for (let scrape = 0; scrape < 3; scrape++) {
        const started = performance.now()
        // bounded so that a scrape that waits on the lock fails here instead of at the test's timeout
        const res = await within(app.inject('/metrics'), 10_000, `scrape ${scrape} with callback_outbox locked`)
        // the reading deadline is 1 s; the rest is a busy host's slack
        expect(performance.now() - started, `scrape ${scrape}`).toBeLessThan(3_000)
        expect(res.body).toContain('callback_outbox_depth 0') // the last count stands
        if (scrape === 0) expect(res.body).toContain('stockplan_store_up 0')
      }
      await locker.query('rollback')
    } finally {
      await locker.end()
      await app.close()
      await services.close()
      await t.drop()
    }
  })
})
