/**
 * The request guard and the security headers on the real app, with the scheduler entry mounted: foreign
 * origins, cross-site fetch metadata and form bodies refused on state-changing paths (the XXL-JOB admin's own
 * server-side POST still answered), `Host` checked when ALLOWED_HOSTS is set (also on the cached-plan lane),
 * nosniff on JSON, a CSP and frame refusal on `/docs`, and the protocol's integers kept to their columns.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServices, type Services } from '../../src/compose.js'
import { buildApp } from '../../src/http/app.js'
import { createLogger } from '../../src/logger.js'
import type { XxlJobExecutor } from '../../src/scheduler/index.js'
import { createScheduler, mountScheduler } from '../../src/scheduler-wiring.js'
import { createMetrics } from '../../src/services/metrics.js'
import { testConfig } from '../support/config.js'
import { rawRequest } from '../support/raw-http.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'

const TOKEN = 'guard-test-token'
const JSON_TYPE = 'application/json;charset=UTF-8'

describe('request guard and security headers', () => {
  let t: TestDatabase
  let dir: string
  let services: Services
  let executor: XxlJobExecutor
  let app: FastifyInstance
  let port = 0

  beforeAll(async () => {
    t = await createTestDatabase()
    dir = await mkdtemp(path.join(os.tmpdir(), 'stockplan-guard-'))
    const config = testConfig({
      XXLJOB_ACCESS_TOKEN: TOKEN,
      PLAN_DATA_DIR: dir,
      ALLOWED_HOSTS: 'localhost,127.0.0.1,plans.lan:8300',
      ALLOWED_ORIGINS: 'http://pms.lan:8080',
    })
    services = createServices(config, createLogger(config), t)
    executor = createScheduler(services, createMetrics({ defaults: false }))!
    app = await buildApp({ ...services, extraPlugins: [mountScheduler(executor)] })
    await app.listen({ port: 0, host: '127.0.0.1' })
    port = (app.server.address() as { port: number }).port
  })
  afterAll(async () => {
    await app?.close()
    await executor?.close()
    await services?.close()
    await t?.drop()
    await rm(dir, { recursive: true, force: true })
  })

  const refresh = (headers: Record<string, string>, payload?: string) =>
    app.inject({ method: 'POST', url: '/plan/refresh', headers, ...(payload === undefined ? {} : { payload }) })

  it('refuses state changes a page of another site could send, with 403 {detail}', async () => {
    const refused: Record<string, string>[] = [
      { origin: 'http://evil.example' },
      { origin: 'null' },
      { origin: 'http://localhost.evil.example' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { 'content-type': 'text/plain' },
      { 'content-type': 'application/x-www-form-urlencoded' },
      { 'content-type': 'multipart/form-data; boundary=x' },
    ]
    for (const headers of refused) {
      const res = await refresh(headers, headers['content-type'] ? 'a=b' : undefined)
      expect(res.statusCode, JSON.stringify(headers)).toBe(403)
      expect(res.json().detail).toMatch(/may not change this service's state|is refused here/)
    }
  })

  it("lets the service's own pages, listed origins and server-side callers through", async () => {
    // an empty store answers 404 from the handler: the request got past the guard
    const passed: Record<string, string>[] = [
      {},
      { origin: 'http://localhost:80' },
      { origin: 'http://pms.lan:8080' },
      { 'sec-fetch-site': 'same-origin' },
      { 'content-type': 'application/json' },
    ]
    for (const headers of passed) {
      const res = await refresh(headers, headers['content-type'] ? '{}' : undefined)
      expect(res.statusCode, JSON.stringify(headers)).toBe(404)
    }
  })

  it('checks the scheduler entry too, without breaking the admin (no Origin, JSON body)', async () => {
    const beat = (headers: Record<string, string>) =>
      app.inject({ method: 'POST', url: '/api/v1/xxljob/beat', headers: { 'xxl-job-access-token': TOKEN, ...headers } })
    expect((await beat({ 'content-type': JSON_TYPE })).json()).toEqual({ code: 200, msg: null })
    expect((await beat({ 'content-type': JSON_TYPE, origin: 'http://evil.example' })).statusCode).toBe(403)
    expect((await beat({ 'content-type': 'text/plain' })).statusCode).toBe(403)
  })

  it('answers only the hosts of ALLOWED_HOSTS, on every path and on the cached-plan lane', async () => {
    const get = (host: string, url = '/health') =>
      rawRequest(port, `GET ${url} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`)
    expect((await get('localhost')).status).toBe(200)
    expect((await get(`127.0.0.1:${port}`)).status).toBe(200)
    expect((await get('plans.lan:8300')).status).toBe(200)
    const rebound = await get('attacker.example')
    expect(rebound.status).toBe(403)
    expect(JSON.parse(rebound.body).detail).toMatch(/Host "attacker\.example" .*ALLOWED_HOSTS/)
    expect((await get('plans.lan:9999')).status).toBe(403)
    expect((await get('attacker.example', '/plan')).status).toBe(403)
  })

  it('sends nosniff on JSON answers, and a CSP and frame refusal on /docs', async () => {
    const health = await app.inject('/health')
    expect(health.headers['x-content-type-options']).toBe('nosniff')
    const refused = await refresh({ origin: 'http://evil.example' })
    expect(refused.headers['x-content-type-options']).toBe('nosniff')

    const docs = await app.inject('/docs/')
    expect(docs.statusCode).toBe(200)
    expect(docs.headers['x-frame-options']).toBe('DENY')
    const csp = String(docs.headers['content-security-policy'])
    expect(csp).toMatch(/frame-ancestors 'none'/)
    expect(csp).toMatch(/default-src 'self'/)
    expect(csp).not.toMatch(/upgrade-insecure-requests|https:/)
    const scripts = /script-src ([^;]*)/.exec(csp)?.[1] ?? ''
    expect(scripts).toMatch(/'self'/)
    expect(scripts).not.toMatch(/unsafe-inline|unsafe-eval/)
  })

  it('keeps the protocol integers to their columns: a clear msg, not a database error', async () => {
    const post = (op: string, body: unknown) =>
      app
        .inject({
          method: 'POST',
          url: `/api/v1/xxljob/${op}`,
          headers: { 'xxl-job-access-token': TOKEN, 'content-type': JSON_TYPE },
          payload: JSON.stringify(body),
        })
        .then((r) => r.json() as { code: number; msg: string })
    const log = await post('log', { logId: 1, fromLineNum: 2147483648 })
    expect(log).toMatchObject({ code: 500, msg: expect.stringMatching(/fromLineNum must be an integer from/) })
    expect(log.msg).not.toMatch(/out of range/)
    expect(await post('kill', { jobId: 2 ** 40 })).toMatchObject({ code: 500, msg: expect.stringMatching(/jobId/) })
    expect(await post('run', { jobId: 1, logId: 1, executorTimeout: 2 ** 31 })).toMatchObject({
      code: 500,
      msg: expect.stringMatching(/executorTimeout must be an integer/),
    })
  })
})
