import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NO_PLAN_DATE_YET } from '../../src/http/routes/health.routes.js'
import { createLogger } from '../../src/logger.js'
import { createDb } from '../../src/storage/db.js'
import { buildTestApp } from '../support/app.js'
import { testConfig } from '../support/config.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'

async function insertTierDates(t: TestDatabase, dates: string[]): Promise<void> {
  await t.db
    .insertInto('tier_scores')
    .values(
      dates.map((trade_date, i) => ({
        trade_date,
        code: `60000${i % 10}.SH`,
        score: 50,
        rank: 1,
        tier: 'observe' as const,
        graph_evidence: '[]',
        build_id: 'b1',
      })),
    )
    .execute()
}

describe('GET /health and GET /plan/dates', () => {
  let t: TestDatabase
  let app: FastifyInstance
  let close: () => Promise<void>
  beforeAll(async () => {
    t = await createTestDatabase()
    ;({ app, close } = await buildTestApp(t, { POOL_TOP: '25', POOL_MAX: '60' }))
  })
  afterAll(async () => {
    await close()
    await t.drop()
  })

  it('reports ok:false with the reason and the pool depth on an empty tier table (no plan date to report)', async () => {
    const res = await app.inject('/health')
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ ok: false, error: NO_PLAN_DATE_YET, pool_top: 25, pool_max: 60 })
    expect(NO_PLAN_DATE_YET).toMatch(/tier table is empty.*stockplan chain/)
  })

  it('lists no dates on an empty store', async () => {
    expect((await app.inject('/plan/dates')).json()).toEqual({ dates: [] })
  })

  it('lists distinct dates newest first, at most limit, default 30', async () => {
    const dates = Array.from(
      { length: 35 },
      (_, i) => `2026-0${1 + Math.floor(i / 28)}-${String((i % 28) + 1).padStart(2, '0')}`,
    )
    await insertTierDates(t, [...dates, dates[0]!.replace('-01', '-01')])
    await t.db
      .insertInto('tier_scores')
      .values({
        trade_date: dates[3]!,
        code: '000001.SZ',
        score: 1,
        rank: 2,
        tier: 'reject',
        graph_evidence: '[]',
        build_id: 'b',
      })
      .execute()
    const sorted = [...new Set(dates)].sort().reverse()
    const res = await app.inject('/plan/dates')
    expect(res.json().dates).toEqual(sorted.slice(0, 30))
    expect((await app.inject('/plan/dates?limit=2')).json()).toEqual({ dates: sorted.slice(0, 2) })
    expect((await app.inject('/health')).json()).toMatchObject({ ok: true, latest_plan_date: sorted[0] })
  })

  it.each(['0', '-1', '3651', 'abc', '1.5', ''])('answers 422 {detail} for limit=%s', async (limit) => {
    const res = await app.inject(`/plan/dates?limit=${limit}`)
    expect(res.statusCode).toBe(422)
    expect(typeof res.json().detail).toBe('string')
  })

  it('answers 422 for a repeated limit', async () => {
    const res = await app.inject('/plan/dates?limit=1&limit=2')
    expect(res.statusCode).toBe(422)
  })

  it('answers unknown paths with 404 {detail}', async () => {
    const res = await app.inject('/nope')
    expect(res.statusCode).toBe(404)
    expect(typeof res.json().detail).toBe('string')
  })

  it('serves an OpenAPI document declaring version 0.1 with both routes', async () => {
    const doc = (await app.inject('/openapi.json')).json()
    expect(doc.info.version).toBe('0.1')
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/health', '/plan/dates']))
    expect((await app.inject('/docs')).statusCode).toBeLessThan(400)
  })
})

describe('GET /health with the store unreachable', () => {
  it('answers 200 ok:false with the error text and the pool depth', async () => {
    const handle = createDb('postgres://postgres@127.0.0.1:1/none', createLogger(testConfig()))
    const { app, close } = await buildTestApp(handle)
    const res = await app.inject('/health')
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(body.ok).toBe(false)
    expect(body.error).toMatch(/ECONNREFUSED/)
    expect(body).toMatchObject({ pool_top: 20, pool_max: 50 })
    expect(body.latest_plan_date).toBeUndefined()
    await close()
    await handle.db.destroy()
  })
})
