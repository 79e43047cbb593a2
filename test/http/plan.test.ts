import { chmod, readFile, rm, writeFile } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ServiceOptions } from '../../src/compose.js'
import { PLAN_VERSION } from '../../src/domain/plan-version.js'
import { PlanSchema } from '../../src/http/schemas/plan.schema.js'
import { createMetrics } from '../../src/services/metrics.js'
import { PLAN_CACHE_MAX } from '../../src/services/plan.service.js'
import { buildTestApp, type TestApp } from '../support/app.js'
import { createDemoDatabase, type DemoMarket } from '../support/demo-market.js'
import { captureLog } from '../support/log-capture.js'
import type { TestDatabase } from '../support/test-db.js'

describe('GET /plan and POST /plan/refresh on the demo market', () => {
  let t: TestDatabase
  let demo: DemoMarket
  let latest: string
  const apps: TestApp[] = []

  async function app(env: Record<string, string> = {}, withLog = false, options: ServiceOptions = {}) {
    const captured = captureLog()
    const built = await buildTestApp(t, { ...demo.env, ...env }, withLog ? { ...options, log: captured.log } : options)
    apps.push(built)
    return { ...built, captured }
  }

  beforeAll(async () => {
    ;[t, demo] = await createDemoDatabase({ history: 2 })
    latest = demo.planned.at(-1)!
  })
  afterAll(async () => {
    for (const a of apps) await a.close()
    await demo.cleanup()
    await t.drop()
  })

  it('serves the latest date from the snapshot with every top-level key and no _full', async () => {
    const { app: server } = await app()
    const res = await server.inject('/plan')
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toMatch(/^application\/json/)
    const plan = res.json()
    expect(plan.date).toBe(latest)
    expect(plan.plan_source).toBe('snapshot')
    expect(plan.snapshot).toBe('present')
    // the release's rules, not a setting
    expect(plan.plan_version).toBe(PLAN_VERSION)
    // the body is written by the 200 schema's serializer: exactly the schema's keys, in the schema's order
    expect(Object.keys(plan)).toEqual(Object.keys(PlanSchema.properties))
    expect(Object.keys(plan).sort()).toEqual(
      [
        'date',
        'main',
        'observe',
        'generated_at',
        'plan_version',
        'regime',
        'card_counts',
        'candidates',
        'watch',
        'segments_pointed',
        'snapshot',
        'market',
        'plan_source',
        'main_empty',
      ].sort(),
    )
    expect(res.body).not.toContain('_full')
    expect(plan.regime).toEqual({
      status: expect.any(String),
      weak_day: expect.any(Boolean),
      source: expect.any(String),
    })
    expect(Object.keys(plan.market).sort()).toEqual(['breadth', 'limits', 'trend', 'turnover'])
    expect(plan.main.length).toBeLessThanOrEqual(20)
    expect(plan.observe.length).toBeLessThanOrEqual(10)
    for (const row of plan.main)
      expect(row).toMatchObject({ decision: 'main', verdict_text: expect.stringMatching(/^main #/) })
  })

  it('gives the same main and observe from the snapshot and from live assembly', async () => {
    const snap = await (await app()).app.inject('/plan?nocache=1')
    const live = await (await app({ PLAN_FROM_SNAPSHOT: 'no' })).app.inject('/plan?nocache=1')
    expect(live.json().plan_source).toBe('live')
    expect(live.json().main).toEqual(snap.json().main)
    expect(live.json().observe).toEqual(snap.json().observe)
  })

  it.each(['0', 'false', 'no', 'NO'])('PLAN_FROM_SNAPSHOT=%s assembles live', async (value) => {
    const res = await (await app({ PLAN_FROM_SNAPSHOT: value })).app.inject('/plan')
    expect(res.json()).toMatchObject({ plan_source: 'live', snapshot: 'present' })
  })

  it('trims main by top and theme_cap and observe by obs_top', async () => {
    const { app: server } = await app()
    type Row = { code: string; theme: string | null }
    const plan = (await server.inject('/plan?top=3&obs_top=2&theme_cap=1')).json()
    expect(plan.main.length).toBeLessThanOrEqual(3)
    expect(plan.observe.length).toBeLessThanOrEqual(2)
    // main in rank order, each theme once at most (a row without a theme is capped by nothing), the first three
    const all: Row[] = (await server.inject('/plan?top=200&theme_cap=50')).json().main
    const seen = new Set<string>()
    const expected = all.filter((r) => r.theme === null || (!seen.has(r.theme) && seen.add(r.theme) !== undefined))
    expect(plan.main.map((r: Row) => r.code)).toEqual(expected.slice(0, 3).map((r) => r.code))
    const themes = plan.main.flatMap((r: Row) => (r.theme === null ? [] : [r.theme]))
    expect(new Set(themes).size).toBe(themes.length)
  })

  it('answers 404 {detail} for a date without data and 422 for malformed sizes', async () => {
    const { app: server } = await app()
    const res = await server.inject('/plan?date=2001-01-02')
    expect(res.statusCode).toBe(404)
    expect(res.json().detail).toMatch(/build/)
    for (const bad of [
      'top=0',
      'top=201',
      'obs_top=x',
      'theme_cap=51',
      'date=2026-02-30',
      'date=20261120',
      'date=../../etc',
    ]) {
      const r = await server.inject(`/plan?${bad}`)
      expect(r.statusCode, bad).toBe(422)
      expect(typeof r.json().detail).toBe('string')
    }
  })

  it('returns Markdown with text/markdown for format=md and JSON for any other format', async () => {
    const { app: server } = await app()
    const md = await server.inject('/plan?format=md')
    expect(md.headers['content-type']).toBe('text/markdown; charset=utf-8')
    expect(md.body).toContain(`# Stock plan for data date ${latest}`)
    expect(md.body).toContain('## Main')
    const other = await server.inject('/plan?format=xml')
    expect(other.headers['content-type']).toMatch(/^application\/json/)
  })

  it('caches by date and sizes, reports hit and miss in one access line per request', async () => {
    const { app: server, captured } = await app({}, true)
    await server.inject('/plan?top=7')
    await server.inject('/plan?top=7')
    await server.inject(`/plan?top=7&date=${latest}`)
    const lines = captured.lines.filter((l) => l.msg === 'plan served')
    expect(lines.map((l) => l.cache)).toEqual(['miss', 'hit', 'hit'])
    expect(lines[0]).toMatchObject({
      client: expect.any(String),
      date: latest,
      regime: expect.any(String),
      generated_at: expect.any(String),
      plan_version: PLAN_VERSION,
      top: 7,
      obs_top: 10,
      theme_cap: 5,
      plan_source: 'snapshot',
      elapsed_s: expect.any(Number),
    })
    expect(captured.lines.filter((l) => l.msg === 'access')).toHaveLength(0)
  })

  it(`keeps at most ${PLAN_CACHE_MAX} entries and evicts the oldest first`, async () => {
    const { app: server, services } = await app()
    for (let top = 1; top <= PLAN_CACHE_MAX + 2; top++) await server.inject(`/plan?top=${top}`)
    const keys = services.plans.cacheKeys()
    expect(keys).toHaveLength(PLAN_CACHE_MAX)
    expect(keys[0]).toBe(`${latest}|3|10|5`)
    expect(keys.at(-1)).toBe(`${latest}|${PLAN_CACHE_MAX + 2}|10|5`)
  })

  it('PLAN_CACHE_SEC=0 disables the cache', async () => {
    const { app: server, captured } = await app({ PLAN_CACHE_SEC: '0' }, true)
    await server.inject('/plan')
    await server.inject('/plan')
    expect(captured.lines.filter((l) => l.msg === 'plan served').map((l) => l.cache)).toEqual(['miss', 'miss'])
  })

  it('nocache bypasses reading and stores the fresh result', async () => {
    let clockMs = Date.now()
    const { app: server, captured } = await app({ PLAN_FROM_SNAPSHOT: 'no' }, true, { now: () => new Date(clockMs) })
    const first = (await server.inject('/plan')).json()
    clockMs += 5
    const fresh = (await server.inject('/plan?nocache=1')).json()
    const after = (await server.inject('/plan')).json()
    expect(fresh.generated_at).not.toBe(first.generated_at)
    expect(after.generated_at).toBe(fresh.generated_at)
    expect(captured.lines.filter((l) => l.msg === 'plan served').map((l) => l.cache)).toEqual(['miss', 'miss', 'hit'])
  })

  it('computes once for 100 concurrent identical requests', async () => {
    let assemblies = 0
    const built = await buildTestApp(
      t,
      { ...demo.env, PLAN_FROM_SNAPSHOT: 'no' },
      {
        observe: { cache: () => undefined, source: () => undefined, liveAssembly: () => assemblies++ },
      },
    )
    apps.push(built)
    const responses = await Promise.all(Array.from({ length: 100 }, () => built.app.inject('/plan?top=11')))
    expect(responses.every((r) => r.statusCode === 200)).toBe(true)
    expect(assemblies).toBe(1)
    expect(new Set(responses.map((r) => r.json().generated_at)).size).toBe(1)
  })

  it('writes snapshot, regime and market per request, never into the cache', async () => {
    let clockMs = Date.now()
    const { app: server } = await app({}, false, { now: () => new Date(clockMs) })
    const first = (await server.inject('/plan?top=9')).json()
    const snapshotFile = demo.services.files.snapshotPath(latest)
    const saved = await readFile(snapshotFile)
    await rm(snapshotFile)
    clockMs += 1001 // snapshot presence is re-checked at most once a second
    const second = (await server.inject('/plan?top=9')).json()
    await writeFile(snapshotFile, saved)
    expect(second.main).toEqual(first.main)
    expect(second.plan_source).toBe('snapshot')
    expect(second.snapshot).toBe('missing')
    expect(second.market).toEqual({})
    expect(second.regime).toMatchObject({ status: 'unknown', weak_day: null })
    clockMs += 1001
    expect((await server.inject('/plan?top=9')).json().snapshot).toBe('present')
  })

  it.each([
    ['corrupt', (f: string) => writeFile(f, '{"date": "2026'), /corrupt JSON/],
    ['empty', (f: string) => writeFile(f, ''), /empty file/],
    [
      'of another date',
      (f: string, s: string) => writeFile(f, s.replace(/"date":"\d{4}-\d{2}-\d{2}"/, '"date":"1999-01-01"')),
      /holds date/,
    ],
    ['unreadable', (f: string) => chmod(f, 0o000), /unreadable|corrupt/],
  ])('falls back to live assembly with a warning when the snapshot is %s', async (_name, spoil, reason) => {
    const metrics = createMetrics({ defaults: false })
    const { app: server, captured } = await app({}, true, { observe: metrics.plan })
    const fallbacks = async () =>
      Number(/^stockplan_plan_snapshot_fallbacks_total (\S+)$/m.exec(await metrics.registry.metrics())?.[1])
    const file = demo.services.files.snapshotPath(latest)
    const saved = await readFile(file, 'utf8')
    try {
      expect(await fallbacks()).toBe(0)
      await spoil(file, saved)
      const res = await server.inject('/plan?nocache=1')
      expect(res.statusCode).toBe(200)
      const warning = captured.lines.find((l) => l.msg === 'snapshot unusable, assembling the plan live')
      // root ignores file modes, so an unreadable file can still be read there; the other cases always warn
      if (_name !== 'unreadable' || process.getuid?.() !== 0) {
        expect(res.json().plan_source).toBe('live')
        expect(String(warning?.reason)).toMatch(reason)
        expect(warning?.reqId, 'the warning names the request').toBeDefined()
        expect(await fallbacks(), 'counted in /metrics as a snapshot fallback').toBe(1)
      }
    } finally {
      await chmod(file, 0o644)
      await writeFile(file, saved)
    }
  })

  it('POST /plan/refresh rewrites the plan file and clears the whole cache', async () => {
    const { app: server, services } = await app()
    await server.inject('/plan')
    await server.inject('/plan?top=5')
    expect(services.plans.cacheKeys()).toHaveLength(2)
    const file = demo.services.files.planPath(latest)
    await rm(file)
    const res = await server.inject({ method: 'POST', url: '/plan/refresh' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ ok: true, file })
    expect(await readFile(file, 'utf8')).toContain(`# Stock plan for data date ${latest}`)
    expect(services.plans.cacheKeys()).toHaveLength(0)
    const missing = await server.inject({ method: 'POST', url: '/plan/refresh?date=2001-01-02' })
    expect(missing.statusCode).toBe(404)
    expect(typeof missing.json().detail).toBe('string')
  })
})
