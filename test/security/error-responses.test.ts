/**
 * No response carries a stack trace or SQL, whatever fails: a database that is not there, a database whose
 * tables are gone (every query an SQL error), a handler throwing an error whose message is SQL, malformed and
 * oversized bodies to the scheduler, unknown routes and malformed paths. Every HTTP error is `{detail}`; the
 * scheduler's replies (HTTP 200 `{code, msg}`) are held to the same rule.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServices, type Services } from '../../src/compose.js'
import { buildApp } from '../../src/http/app.js'
import { createLogger } from '../../src/logger.js'
import { createScheduler, mountScheduler } from '../../src/scheduler-wiring.js'
import { createMetrics } from '../../src/services/metrics.js'
import { createDb, type DbHandle } from '../../src/storage/db.js'
import { testConfig } from '../support/config.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'

const TOKEN = 'err-test-token-51ab'
const DEAD_DATABASE_URL = 'postgres://stockplan:nothing@127.0.0.1:1/stockplan'

/** A stack frame, a source location or an internal path. */
const STACK =
  /\n\s*at\s|\bat\s+\S+\s+\(|\bat\s+(file:\/\/|\/)\S+:\d+:\d+|node_modules|file:\/\/|\/work\/|\.[cm]?[jt]s:\d+/
/** SQL text: a statement keyword pair, a bind parameter, a quoted qualified column. */
const SQL =
  /\bselect\b[\s\S]*\bfrom\b|\binsert\s+into\b|\bupdate\s+"?\w+"?\s+set\b|\bdelete\s+from\b|\bon\s+conflict\b|\$\d+\b|"\w+"\."\w+"/i

const SCHEDULER_REQUESTS: Array<{ op: string; body: string; type?: string; what: string }> = [
  { op: 'run', body: '{"jobId":', what: 'truncated JSON' },
  { op: 'run', body: '{"logId":"x","jobId":{"a":[1,2]},"executorHandler":42}', what: 'wrong types' },
  { op: 'run', body: '[1,2,3]', what: 'an array' },
  { op: 'run', body: 'null', what: 'null' },
  { op: 'run', body: '"just a string"', what: 'a JSON string' },
  { op: 'run', body: `${'['.repeat(20_000)}${']'.repeat(20_000)}`, what: 'deep nesting' },
  { op: 'run', body: '{"__proto__":{"polluted":1},"constructor":{"prototype":{"x":1}}}', what: 'prototype keys' },
  { op: 'run', body: '\u0000\u0001\u00ff\ufffd<xml/>', type: 'application/octet-stream', what: 'binary junk' },
  { op: 'kill', body: '{"jobId":"drop table x"}', what: 'a string job id' },
  { op: 'log', body: '{"logId":-1,"fromLineNum":1e400}', what: 'absurd numbers' },
  { op: 'idleBeat', body: '{}', what: 'no job id' },
  { op: 'beat', body: 'x'.repeat(2 * 1024 * 1024), what: 'a 2 MB body' },
  { op: 'nope', body: '{}', what: 'an unknown op' },
  { op: `${'deep/'.repeat(60)}x`, body: '{}', what: 'a 300-character op' },
]

const HTTP_REQUESTS: Array<{ method: 'GET' | 'POST' | 'PUT' | 'DELETE'; url: string }> = [
  { method: 'GET', url: '/health' },
  { method: 'GET', url: '/plan/dates' },
  { method: 'GET', url: '/plan/dates?limit=3' },
  { method: 'GET', url: '/plan' },
  { method: 'GET', url: '/plan?format=md' },
  { method: 'GET', url: '/plan?date=2024-01-02&nocache=1' },
  { method: 'POST', url: '/plan/refresh' },
  { method: 'POST', url: '/plan/refresh?date=2024-01-02' },
  { method: 'GET', url: '/plan/verdict?codes=600000,000001.SZ,bad' },
  { method: 'GET', url: '/plan/verdict?code=600000&date=2024-01-02' },
  { method: 'GET', url: '/logic_state?codes=600000,bad' },
  { method: 'GET', url: '/logic_state?code=600000&date=2024-01-02' },
  { method: 'GET', url: '/plan?top=0' },
  { method: 'GET', url: '/nope' },
  { method: 'DELETE', url: '/plan' },
  { method: 'PUT', url: '/plan/refresh' },
  { method: 'GET', url: '/plan%zz' },
  { method: 'GET', url: '/..%2f..%2fetc%2fpasswd' },
  { method: 'GET', url: `/api/v1/xxljob/${'a'.repeat(300)}` },
  { method: 'GET', url: '/' },
  { method: 'GET', url: '/metrics' },
  { method: 'GET', url: '/openapi.json' },
]

function expectClean(res: LightMyRequestResponse, what: string): void {
  const text = `${res.body}\n${JSON.stringify(res.headers)}`
  expect(text, `${what}: stack in ${res.body.slice(0, 300)}`).not.toMatch(STACK)
  if (res.statusCode >= 400 || /json/.test(String(res.headers['content-type']))) {
    expect(res.body, `${what}: SQL in ${res.body.slice(0, 300)}`).not.toMatch(SQL)
  }
  expect(res.statusCode, what).not.toBe(502)
  if (res.statusCode >= 400 && res.body !== '') {
    expect(res.headers['content-type'], what).toMatch(/^application\/json/)
    const body = res.json() as Record<string, unknown>
    expect(Object.keys(body), what).toEqual(['detail'])
    expect(typeof body.detail, what).toBe('string')
  }
}

/** The whole app, scheduler entry included, over `store`; `override` replaces services the test breaks. */
async function appOver(
  store: DbHandle & { url?: string },
  override: (s: Services) => Partial<Services> = () => ({}),
): Promise<FastifyInstance> {
  const config = testConfig({ XXLJOB_ACCESS_TOKEN: TOKEN, PLAN_DATA_DIR: '/nonexistent/stockplan-plan-dir' })
  const services = createServices(config, createLogger(config), store)
  const metrics = createMetrics({ defaults: false })
  const executor = createScheduler(services, metrics)!
  return buildApp({
    ...services,
    ...override(services),
    metrics,
    extraPlugins: [mountScheduler(executor)],
  })
}

async function sweep(app: FastifyInstance, label: string): Promise<LightMyRequestResponse[]> {
  const out: LightMyRequestResponse[] = []
  for (const { method, url } of HTTP_REQUESTS) {
    const res = await app.inject({ method, url })
    expectClean(res, `${label} ${method} ${url.slice(0, 80)}`)
    out.push(res)
  }
  for (const { op, body, type, what } of SCHEDULER_REQUESTS) {
    const res = await app.inject({
      method: 'POST',
      url: `/api/v1/xxljob/${op}`,
      headers: { 'XXL-JOB-ACCESS-TOKEN': TOKEN, 'content-type': type ?? 'application/json' },
      payload: body,
    })
    expectClean(res, `${label} scheduler ${what}`)
    if (res.statusCode === 200) {
      const reply = res.json() as { code: number; msg: unknown }
      expect(typeof reply.code, what).toBe('number')
    }
    out.push(res)
  }
  return out
}

describe('no stack trace or SQL in any response', () => {
  let t: TestDatabase
  const apps: FastifyInstance[] = []
  const handles: DbHandle[] = []

  beforeAll(async () => {
    t = await createTestDatabase()
  })
  afterAll(async () => {
    for (const app of apps) await app.close()
    for (const h of handles) await h.db.destroy()
    await t?.drop()
  })

  it('with a database that is not there: 503/500 {detail}, /health ok:false, scheduler {code, msg}', async () => {
    const dead = createDb(DEAD_DATABASE_URL, createLogger({ logLevel: 'silent' }))
    handles.push(dead)
    const app = await appOver({ ...dead, url: DEAD_DATABASE_URL })
    apps.push(app)
    const responses = await sweep(app, 'dead db')
    const health = (await app.inject('/health')).json() as Record<string, unknown>
    expect(health).toMatchObject({ ok: false })
    expect(String(health.error)).toMatch(/ECONNREFUSED/)
    expect(responses.some((r) => r.statusCode === 503)).toBe(true)
    // the store's address is nobody's business on the network: not in a detail, not in /health
    const texts = [String(health.error), ...responses.filter((r) => r.statusCode >= 500).map((r) => r.body)]
    for (const text of texts) expect(text).not.toMatch(/127\.0\.0\.1|:1\b/)
    expect(responses.some((r) => r.statusCode === 413)).toBe(true)
  })

  it('with every table gone: SQL errors surface as their message at most, never the statement', async () => {
    const broken = await createTestDatabase()
    let app: FastifyInstance | undefined
    try {
      const tables = await sql<{
        tablename: string
      }>`select tablename from pg_tables where schemaname = 'public'`.execute(broken.db)
      for (const { tablename } of tables.rows) {
        if (tablename.startsWith('kysely_')) continue
        await sql`alter table ${sql.id(tablename)} rename to ${sql.id(`${tablename}_gone`)}`.execute(broken.db)
      }
      app = await appOver(broken)
      const responses = await sweep(app, 'no tables')
      expect(responses.filter((r) => r.statusCode === 500).length).toBeGreaterThan(0)
      const details = responses.filter((r) => r.statusCode >= 500).map((r) => r.json().detail as string)
      expect(details.join('\n')).not.toMatch(/tier_scores"\s*\(|from\s+"?tier_scores/i)
    } finally {
      await app?.close()
      await broken.drop()
    }
  })

  it('with a handler throwing an error whose message is SQL: 500 Internal Server Error only', async () => {
    const leaky = (): never => {
      const err = new Error('select "tier_scores"."code" from "tier_scores" where "trade_date" = $1')
      err.stack = `${err.message}\n    at leaky (/work/main/src/services/plan.service.ts:1:1)`
      throw err
    }
    const app = await appOver(t, (s) => ({
      plans: { ...s.plans, getPlan: leaky, refreshPlanFile: leaky },
      tiers: { ...s.tiers, listDates: leaky },
    }))
    apps.push(app)
    for (const [method, url] of [
      ['GET', '/plan'],
      ['POST', '/plan/refresh'],
      ['GET', '/plan/dates'],
    ] as const) {
      const res = await app.inject({ method, url })
      expect(res.statusCode, url).toBe(500)
      expect(res.json(), url).toEqual({ detail: 'Internal Server Error' })
      expectClean(res, url)
    }
  })
})
