/**
 * The HTTP edges the OpenAPI document describes: optional parameters, decimal integers only, one value per
 * parameter, error texts in words, HEAD without bodies, 405 with `Allow`, no warning and no live assembly for a
 * date without tier rows, and the plan access line on every `GET /plan`, failures included.
 */
import { readFile, rm, writeFile } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_SIZES } from '../../src/domain/plan-assembly.js'
import type { PlanObserver } from '../../src/services/plan.service.js'
import { buildTestApp, listenLocal, type TestApp } from '../support/app.js'
import { createDemoDatabase, type DemoMarket } from '../support/demo-market.js'
import { type CapturedLog, captureLog } from '../support/log-capture.js'
import { malformedRequest, oversizedRequest, rawRequest } from '../support/raw-http.js'
import type { TestDatabase } from '../support/test-db.js'

describe('HTTP edges on the demo market', () => {
  let t: TestDatabase
  let demo: DemoMarket
  let built: TestApp
  let captured: CapturedLog
  let port = 0
  let unplanned = ''
  const counts = { live: 0, snapshot: 0, liveSource: 0 }
  const observe: PlanObserver = {
    cache: () => undefined,
    source: (s) => {
      if (s === 'live') counts.liveSource++
      else counts.snapshot++
    },
    liveAssembly: () => {
      counts.live++
    },
  }
  const get = (url: string) => built.app.inject(url)

  beforeAll(async () => {
    ;[t, demo] = await createDemoDatabase({ stocks: 300, history: 2 })
    unplanned = demo.calendar[0]!
    captured = captureLog('info')
    built = await buildTestApp(t, demo.env, { log: captured.log, observe })
    port = await listenLocal(built.app)
  })
  afterAll(async () => {
    await built.close()
    await demo.cleanup()
    await t.drop()
  })

  it('documents every query parameter as optional and serves every path without any', async () => {
    const doc = (await get('/openapi.json')).json()
    const required = Object.entries(doc.paths).flatMap(([p, ops]) =>
      Object.values(
        ops as Record<string, { parameters?: Array<{ name: string; in: string; required?: boolean }> }>,
      ).flatMap((op) => (op.parameters ?? []).filter((q) => q.required !== false).map((q) => `${p} ${q.in} ${q.name}`)),
    )
    // a path parameter is part of the path (OpenAPI requires it); every query parameter is optional
    expect(required).toEqual(['/stock/{code} path code'])
    expect((await get('/plan')).statusCode).toBe(200)
    expect((await get('/plan/dates')).json().dates).toHaveLength(demo.planned.length)
  })

  it.each([
    ['/plan/dates?limit=0x2', 'limit', '"0x2"'],
    ['/plan?top=1e1', 'top', '"1e1"'],
    ['/plan?top=%2B5', 'top', '"+5"'],
    ['/plan?nocache=0b1', 'nocache', '"0b1"'],
    ['/plan?top=Infinity', 'top', '"Infinity"'],
    ['/plan?obs_top=2.0', 'obs_top', '"2.0"'],
    ['/plan?theme_cap=%205', 'theme_cap', '" 5"'],
    ['/plan?top=', 'top', '""'],
    ['/plan/track_record?horizon=1e1', 'horizon', '"1e1"'],
  ])('refuses %s: only decimal integers, with the default as the example', async (url, name, shown) => {
    const res = await get(url)
    expect(res.statusCode).toBe(422)
    // the example is a value the parameter takes: its default (horizon=10 would be refused again)
    const example = {
      limit: 30,
      top: DEFAULT_SIZES.top,
      nocache: 0,
      obs_top: DEFAULT_SIZES.obs_top,
      theme_cap: DEFAULT_SIZES.theme_cap,
      horizon: 5,
    }[name]
    expect(res.json().detail).toBe(`${name} must be a decimal integer, e.g. ${name}=${example} (got ${shown})`)
  })

  it('takes decimal integers, leading zeros included', async () => {
    const res = await get('/plan?top=03&obs_top=1&theme_cap=2&nocache=0')
    expect(res.statusCode).toBe(200)
    expect(res.json().main.length).toBeLessThanOrEqual(3)
    expect(res.json().observe.length).toBeLessThanOrEqual(1)
  })

  it.each([
    ['/plan?top=1&top=2', 'top must be given once, not 2 times'],
    ['/plan?format=md&format=json', 'format must be given once, not 2 times'],
    ['/plan/dates?limit=1&limit=1&limit=1', 'limit must be given once, not 3 times'],
    ['/plan/verdict?code=600000&date=2026-11-19&date=2026-11-20', 'date must be given once, not 2 times'],
    ['/logic_state?codes=600000&codes=000001', 'codes must be given once, not 2 times'],
  ])('refuses a repeated parameter: %s', async (url, detail) => {
    const res = await get(url)
    expect(res.statusCode).toBe(422)
    expect(res.json()).toEqual({ detail })
  })

  it.each([
    ['/plan?date=2026-02-30', 'date must be a real calendar date, YYYY-MM-DD'],
    ['/plan?date=0000-01-01', 'date must be a real calendar date, YYYY-MM-DD'],
    ['/plan/verdict?code=1&date=20261120', 'date must be a real calendar date, YYYY-MM-DD'],
    ['/plan?top=201', 'top must be at most 200'],
    ['/plan?theme_cap=0', 'theme_cap must be at least 1'],
    [`/plan/dates?limit=1${'0'.repeat(400)}`, 'limit must be at most 3650'],
    [`/logic_state?code=${'6'.repeat(20_001)}`, 'code must be at most 20000 characters long'],
  ])('words the error: %#', async (url, detail) => {
    const res = await get(url)
    expect(res.statusCode).toBe(422)
    expect(res.json()).toEqual({ detail })
  })

  it.each([
    ['GET', '/plan/refresh', 'POST'],
    ['POST', '/health', 'GET, HEAD'],
    ['DELETE', '/plan', 'GET, HEAD'],
    ['PUT', '/plan/dates', 'GET, HEAD'],
    ['PATCH', '/plan/verdict', 'GET, HEAD'],
    ['POST', '/logic_state', 'GET, HEAD'],
  ] as const)('answers %s %s with 405 and Allow: %s', async (method, url, allow) => {
    const res = await built.app.inject({ method, url: `${url}?date=2026-11-20` })
    expect(res.statusCode).toBe(405)
    expect(res.headers.allow).toBe(allow)
    expect(res.json().detail).toBe(`Method Not Allowed: ${method} ${url}; use ${allow}`)
  })

  it('still answers 404 for an unknown path', async () => {
    const res = await built.app.inject({ method: 'POST', url: '/plan/nope' })
    expect(res.statusCode).toBe(404)
    expect(res.headers.allow).toBeUndefined()
  })

  it.each([
    ['refused before routing, over 16 KB', oversizedRequest('HEAD', '/plan/verdict'), 431],
    ['refused before routing, malformed', malformedRequest('HEAD', '/health'), 400],
    ['routed', 'HEAD /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 200],
    ['with a bad parameter', 'HEAD /plan?top=x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 422],
    ['on an unknown path', 'HEAD /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 404],
    ['on a POST-only path', 'HEAD /plan/refresh HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 405],
  ])('answers HEAD %s without a body', async (_name, request, status) => {
    const res = await rawRequest(port, request)
    expect(res.status).toBe(status)
    expect(res.headers['content-type']).toMatch(/^application\/json/)
    expect(res.body).toBe('')
  })

  it('answers the same request with GET with a body (the HEAD check above is not vacuous)', async () => {
    const res = await rawRequest(port, oversizedRequest('GET', '/plan/verdict'))
    expect(res.status).toBe(431)
    expect(JSON.parse(res.body)).toEqual({ detail: 'request line and headers exceed the size limit' })
  })

  it('logs no warning and counts no live assembly for a date without tier rows', async () => {
    const before = { ...counts }
    const from = captured.lines.length
    for (const url of [
      `/plan?date=${unplanned}`,
      `/plan?date=${unplanned}&format=md`,
      `/plan/verdict?code=600000&date=${unplanned}`,
    ]) {
      expect((await get(url)).statusCode, url).toBe(404)
    }
    expect(await built.app.inject({ method: 'POST', url: `/plan/refresh?date=${unplanned}` })).toMatchObject({
      statusCode: 404,
    })
    const warnings = captured.lines.slice(from).filter((l) => Number(l.level) >= 40)
    expect(warnings).toEqual([])
    expect(counts).toEqual(before)
  })

  it('still warns, with the request id, and counts the assembly when a date with rows has no snapshot', async () => {
    const date = demo.planned[0]!
    const file = demo.services.files.snapshotPath(date)
    const saved = await readFile(file, 'utf8')
    const from = captured.lines.length
    const live = counts.live
    try {
      await rm(file)
      const res = await get(`/plan?date=${date}&nocache=1`)
      expect(res.statusCode).toBe(200)
      expect(res.json().plan_source).toBe('live')
    } finally {
      await writeFile(file, saved)
    }
    const warning = captured.lines.slice(from).find((l) => l.msg === 'snapshot unusable, assembling the plan live')
    expect(warning).toMatchObject({ date, reqId: expect.any(String) })
    expect(counts.live).toBe(live + 1)
  })

  it('writes the plan access line, with format and status, for every GET /plan, failures included', async () => {
    const from = captured.lines.length
    const requests = [
      ['/plan', 200, 'json'],
      ['/plan?format=md&top=3', 200, 'md'],
      ['/plan?format=xml', 200, 'xml'],
      [`/plan?date=${unplanned}`, 404, 'json'],
      ['/plan?top=x&format=md', 422, 'md'],
      ['/plan?top=1&top=2', 422, 'json'],
    ] as const
    for (const [url, status] of requests) expect((await get(url)).statusCode, url).toBe(status)
    const lines = captured.lines.slice(from).filter((l) => l.msg === 'plan served' || l.msg === 'plan failed')
    expect(lines.map((l) => [l.status, l.format])).toEqual(requests.map(([, status, format]) => [status, format]))
    for (const line of lines) {
      expect(line.msg).toBe(Number(line.status) < 400 ? 'plan served' : 'plan failed')
      expect(line).toMatchObject({
        client: expect.any(String),
        elapsed_s: expect.any(Number),
        reqId: expect.any(String),
      })
    }
    expect(lines[1]).toMatchObject({
      top: 3,
      obs_top: 10,
      theme_cap: 5,
      cache: expect.any(String),
      plan_source: 'snapshot',
    })
    expect(lines[3]).toMatchObject({ date: unplanned, cache: null, plan_source: null })
    expect(captured.lines.slice(from).filter((l) => l.msg === 'access')).toEqual([])
  })
})
