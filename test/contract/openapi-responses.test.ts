/**
 * The contract, machine-checked: the whole request set (every public path, every documented status, both media
 * types of the plan, on the demo market, an empty store and a store that is down) is sent to the real app, and
 * each real response is validated against the document the app serves at `/openapi.json`, with ajv (JSON
 * Schema 2020-12, as OpenAPI 3.1 uses) and ajv-formats. Every status a response has must be documented for its
 * path and media type, and every documented (path, method, status, media type) must be produced at least once.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from '../../src/logger.js'
import { createDb } from '../../src/storage/db.js'
import { buildTestApp, listenLocal, type TestApp } from '../support/app.js'
import { testConfig } from '../support/config.js'
import { createDemoDatabase, type DemoMarket } from '../support/demo-market.js'
import { malformedRequest, oversizedRequest, rawRequest } from '../support/raw-http.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020

type Target = 'demo' | 'empty' | 'down'

interface Request {
  readonly target: Target
  readonly method: 'GET' | 'POST'
  readonly url: string
  /** Sent on a raw socket: a header line node refuses (400), or a request line over 16 KB (431). */
  readonly raw?: 'malformed' | 'oversized'
  /** A request body: media type and text. */
  readonly body?: readonly [string, string]
  readonly headers?: Readonly<Record<string, string>>
  readonly status: number
  /** The documented path when the URL fills a template (`/stock/{code}`). */
  readonly path?: string
}

interface OpenApiDoc {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>>
}

const DOC_ID = 'https://stockplan.local/openapi.json'
const STRICT_ID = 'https://stockplan.local/openapi-strict.json'

/**
 * The document with every object schema closed (`additionalProperties: false` where it says nothing): the
 * served document stays open, as the spec lets consumers ignore unknown keys, but a field the service sends
 * and the document does not name fails here. A new field is one property in its schema.
 */
function closed(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closed)
  if (node === null || typeof node !== 'object') return node
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) out[key] = key === 'examples' ? value : closed(value)
  if (out.type === 'object' && out.properties !== undefined && out.additionalProperties === undefined) {
    out.additionalProperties = false
  }
  return out
}
const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')

describe('every response of the request set matches the served OpenAPI document', () => {
  let t: TestDatabase
  let empty: TestDatabase
  let demo: DemoMarket
  let tmp: string
  const apps = new Map<Target, TestApp>()
  let port = 0
  let latest = ''
  let unplanned = ''
  let known = ''

  beforeAll(async () => {
    empty = await createTestDatabase()
    ;[t, demo] = await createDemoDatabase({ stocks: 300, history: 2 })
    latest = demo.planned.at(-1)!
    unplanned = demo.calendar[0]!
    tmp = await mkdtemp(path.join(os.tmpdir(), 'stockplan-contract-'))
    // the Host inject and the raw requests send is allowed; any other is refused (403 on every path)
    apps.set('demo', await buildTestApp(t, { ...demo.env, ALLOWED_HOSTS: 'localhost' }))
    apps.set('empty', await buildTestApp(empty, { PLAN_DATA_DIR: path.join(tmp, 'empty') }))
    const down = createDb('postgres://postgres@127.0.0.1:1/none', createLogger(testConfig()))
    apps.set('down', await buildTestApp(down, { PLAN_DATA_DIR: path.join(tmp, 'down') }))
    port = await listenLocal(apps.get('demo')!.app)
    known = ((await apps.get('demo')!.app.inject('/plan')).json() as { main: Array<{ code: string }> }).main[0]!.code
  })
  afterAll(async () => {
    for (const a of apps.values()) await a.close()
    await demo.cleanup()
    await Promise.all([t.drop(), empty.drop()])
    await rm(tmp, { recursive: true, force: true })
  })

  function requestSet(): Request[] {
    const lookups = ['/plan/verdict', '/logic_state'] as const
    const set: Request[] = [
      { target: 'demo', method: 'GET', url: '/health', status: 200 },
      { target: 'empty', method: 'GET', url: '/health', status: 200 },
      { target: 'down', method: 'GET', url: '/health', status: 200 },
      { target: 'demo', method: 'GET', url: '/plan/dates', status: 200 },
      { target: 'demo', method: 'GET', url: '/plan/dates?limit=1', status: 200 },
      { target: 'empty', method: 'GET', url: '/plan/dates', status: 200 },
      { target: 'demo', method: 'GET', url: '/plan/dates?limit=0x2', status: 422 },
      { target: 'demo', method: 'GET', url: '/plan/dates?limit=1&limit=2', status: 422 },
      { target: 'down', method: 'GET', url: '/plan/dates', status: 503 },
      { target: 'demo', method: 'GET', url: '/plan', status: 200 },
      { target: 'demo', method: 'GET', url: `/plan?date=${latest}&top=3&obs_top=2&theme_cap=1&nocache=1`, status: 200 },
      { target: 'demo', method: 'GET', url: '/plan?format=md', status: 200 },
      { target: 'demo', method: 'GET', url: `/plan?format=md&date=${demo.planned[0]}`, status: 200 },
      { target: 'demo', method: 'GET', url: `/plan?date=${unplanned}`, status: 404 },
      { target: 'empty', method: 'GET', url: '/plan', status: 404 },
      { target: 'empty', method: 'GET', url: '/plan?format=md', status: 404 },
      { target: 'demo', method: 'GET', url: '/plan?top=1e1', status: 422 },
      { target: 'demo', method: 'GET', url: '/plan?date=2026-02-30', status: 422 },
      { target: 'down', method: 'GET', url: '/plan?date=2026-01-05', status: 503 },
      { target: 'demo', method: 'POST', url: `/plan/refresh?date=${latest}`, status: 200 },
      { target: 'empty', method: 'POST', url: '/plan/refresh', status: 404 },
      { target: 'demo', method: 'POST', url: '/plan/refresh?date=2026-13-01', status: 422 },
      { target: 'down', method: 'POST', url: '/plan/refresh?date=2026-01-05', status: 503 },
      { target: 'demo', method: 'POST', url: '/plan/refresh', body: ['application/json', '{bad'], status: 400 },
      {
        target: 'demo',
        method: 'POST',
        url: '/plan/refresh',
        body: ['application/json', 'x'.repeat(1 << 21)],
        status: 413,
      },
      { target: 'demo', method: 'POST', url: '/plan/refresh', body: ['application/xml', '<a/>'], status: 415 },
      {
        target: 'demo',
        method: 'POST',
        url: '/plan/refresh',
        headers: { origin: 'http://evil.example' },
        status: 403,
      },
      { target: 'demo', method: 'POST', url: '/plan/refresh', body: ['text/plain', 'x=1'], status: 403 },
    ]
    set.push(
      { target: 'demo', method: 'GET', url: '/plan/track_record', status: 200 },
      { target: 'demo', method: 'GET', url: '/plan/track_record?horizon=1&benchmark=000300.SH', status: 200 },
      { target: 'demo', method: 'GET', url: '/plan/track_record?horizon=3', status: 422 },
      { target: 'down', method: 'GET', url: '/plan/track_record', status: 503 },
      { target: 'demo', method: 'GET', url: `/stock/${known}?days=20`, status: 200, path: '/stock/{code}' },
      {
        target: 'demo',
        method: 'GET',
        url: `/stock/${known.slice(0, 6)}?date=${demo.planned[0]}`,
        status: 200,
        path: '/stock/{code}',
      },
      { target: 'demo', method: 'GET', url: '/stock/600001.SZ', status: 422, path: '/stock/{code}' },
      { target: 'demo', method: 'GET', url: '/stock/600000?days=5', status: 422, path: '/stock/{code}' },
      { target: 'demo', method: 'GET', url: '/stock/605999.SH', status: 404, path: '/stock/{code}' },
      { target: 'empty', method: 'GET', url: '/stock/600000', status: 404, path: '/stock/{code}' },
      { target: 'down', method: 'GET', url: '/stock/600000?date=2026-01-05', status: 503, path: '/stock/{code}' },
      { target: 'demo', method: 'GET', url: `/stocks?codes=${known},600000,bogus,${known.slice(0, 6)}`, status: 200 },
      { target: 'demo', method: 'GET', url: `/stocks?code=600000&date=${demo.planned[0]}`, status: 200 },
      { target: 'demo', method: 'GET', url: '/stocks?codes=,%20,', status: 400 },
      { target: 'empty', method: 'GET', url: '/stocks?code=600000', status: 404 },
      { target: 'demo', method: 'GET', url: '/stocks?code=600000&date=2023-02-29', status: 422 },
      { target: 'down', method: 'GET', url: '/stocks?code=600000&date=2026-01-05', status: 503 },
    )
    for (const p of lookups) {
      set.push(
        { target: 'demo', method: 'GET', url: `${p}?codes=600000,SZ000001,000002.SZ,bogus,600000`, status: 200 },
        { target: 'demo', method: 'GET', url: `${p}?code=600000&date=${demo.planned[0]}`, status: 200 },
        { target: 'demo', method: 'GET', url: `${p}?codes=,%20,`, status: 400 },
        { target: 'empty', method: 'GET', url: `${p}?code=600000`, status: 404 },
        { target: 'demo', method: 'GET', url: `${p}?code=600000&date=2023-02-29`, status: 422 },
        { target: 'demo', method: 'GET', url: `${p}?code=600000&code=000001`, status: 422 },
        { target: 'down', method: 'GET', url: `${p}?code=600000`, status: 500 },
      )
    }
    for (const [method, url] of [
      ['GET', '/health'],
      ['GET', '/plan/dates'],
      ['GET', '/plan'],
      ['POST', '/plan/refresh'],
      ['GET', '/plan/verdict'],
      ['GET', '/logic_state'],
      ['GET', '/plan/track_record'],
      ['GET', '/stocks'],
    ] as const) {
      set.push({ target: 'demo', method, url, headers: { host: 'rebound.example' }, status: 403 })
      set.push({ target: 'demo', method, url, raw: 'malformed', status: 400 })
      set.push({ target: 'demo', method, url, raw: 'oversized', status: 431 })
    }
    set.push({
      target: 'demo',
      method: 'GET',
      url: '/stock/600000',
      headers: { host: 'rebound.example' },
      status: 403,
      path: '/stock/{code}',
    })
    for (const raw of ['malformed', 'oversized'] as const)
      set.push({
        target: 'demo',
        method: 'GET',
        url: '/stock/600000',
        raw,
        status: raw === 'malformed' ? 400 : 431,
        path: '/stock/{code}',
      })
    return set
  }

  async function send(r: Request): Promise<{ status: number; type: string; body: string }> {
    if (r.raw) {
      const text = r.raw === 'malformed' ? malformedRequest(r.method, r.url) : oversizedRequest(r.method, r.url)
      const res = await rawRequest(port, text)
      return { status: res.status, type: res.headers['content-type'] ?? '', body: res.body }
    }
    const res = await apps.get(r.target)!.app.inject({
      method: r.method,
      url: r.url,
      headers: { ...r.headers, ...(r.body ? { 'content-type': r.body[0] } : {}) },
      ...(r.body ? { payload: r.body[1] } : {}),
    })
    return { status: res.statusCode, type: String(res.headers['content-type'] ?? ''), body: res.body }
  }

  it('sends the whole set and validates each response', async () => {
    const doc = (await apps.get('demo')!.app.inject('/openapi.json')).json() as OpenApiDoc
    const ajv = new Ajv2020({ strict: false, allErrors: true })
    addFormats(ajv)
    ajv.addSchema(doc as object, DOC_ID)
    ajv.addSchema(closed(doc) as object, STRICT_ID)

    const documented = new Set<string>()
    for (const [p, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const [status, response] of Object.entries(op.responses)) {
          for (const media of Object.keys(response.content ?? {})) documented.add(`${method} ${p} ${status} ${media}`)
        }
      }
    }

    // the validator is no rubber stamp: the old empty-store health body and a plan without regime fail it
    const schemaOf = (p: string, method: string, status: string) =>
      ajv.getSchema(
        `${DOC_ID}#/${pointer('paths', p, method, 'responses', status, 'content', 'application/json', 'schema')}`,
      )!
    expect(schemaOf('/health', 'get', '200')({ ok: true, latest_plan_date: null, pool_top: 20, pool_max: 50 })).toBe(
      false,
    )
    const plan = (await apps.get('demo')!.app.inject('/plan')).json()
    expect(schemaOf('/plan', 'get', '200')(plan)).toBe(true)
    expect(schemaOf('/plan', 'get', '200')({ ...plan, regime: undefined })).toBe(false)
    expect(schemaOf('/plan', 'get', '200')({ ...plan, date: '2026-02-30' })).toBe(false)
    const strictPlan = ajv.getSchema(
      `${STRICT_ID}#/${pointer('paths', '/plan', 'get', 'responses', '200', 'content', 'application/json', 'schema')}`,
    )!
    expect(strictPlan(plan), ajv.errorsText(strictPlan.errors)).toBe(true)
    expect(strictPlan({ ...plan, main: [{ ...plan.main[0], undocumented: 1 }] })).toBe(false)
    expect(schemaOf('/plan', 'get', '200')({ ...plan, main: [{ ...plan.main[0], undocumented: 1 }] })).toBe(true)

    // the demo examples in the document are valid instances of their schemas, naming no undocumented field
    const components = (doc as unknown as { components: { schemas: Record<string, { examples?: unknown[] }> } })
      .components.schemas
    let examples = 0
    for (const [name, schema] of Object.entries(components)) {
      const validateExample = ajv.getSchema(`${STRICT_ID}#/components/schemas/${name}`)!
      for (const example of schema.examples ?? []) {
        expect(validateExample(example), `${name} example: ${ajv.errorsText(validateExample.errors)}`).toBe(true)
        examples++
      }
    }
    expect(examples).toBeGreaterThanOrEqual(Object.keys(components).length)

    const produced = new Set<string>()
    let validated = 0
    for (const r of requestSet()) {
      const label = `${r.target}: ${r.raw ?? ''} ${r.method} ${r.url.slice(0, 120)}`
      const res = await send(r)
      expect(res.status, `${label}: ${res.body.slice(0, 300)}`).toBe(r.status)
      const method = r.method.toLowerCase()
      const p = r.path ?? r.url.split('?')[0]!
      const media = res.type.split(';')[0]!.trim()
      const key = `${method} ${p} ${res.status} ${media}`
      expect(documented, `${label}: ${key} is documented`).toContain(key)
      const validate = ajv.getSchema(
        `${DOC_ID}#/${pointer('paths', p, method, 'responses', String(res.status), 'content', media, 'schema')}`,
      )
      expect(validate, key).toBeDefined()
      const data = media === 'application/json' ? JSON.parse(res.body) : res.body
      const ok = validate!(data)
      expect(ok, `${label}: ${ajv.errorsText(validate!.errors)}\n${res.body.slice(0, 500)}`).toBe(true)
      const strict = ajv.getSchema(
        `${STRICT_ID}#/${pointer('paths', p, method, 'responses', String(res.status), 'content', media, 'schema')}`,
      )!
      expect(strict(data), `${label}, undocumented field: ${ajv.errorsText(strict.errors)}`).toBe(true)
      produced.add(key)
      validated++
    }
    expect(
      [...documented].filter((k) => !produced.has(k)),
      'documented but never produced',
    ).toEqual([])
    console.info(`openapi contract: ${validated} responses and ${examples} examples validated against /openapi.json`)
    expect(validated).toBeGreaterThanOrEqual(documented.size)
  })
})
