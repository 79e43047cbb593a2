/**
 * Hostile query strings for every query parameter of every endpoint, through `app.inject` on a seeded demo
 * market: random strings (unicode, `%00`, `../`, very long), numbers (negative, huge, floats, exponent forms),
 * repeated and missing parameters never give a 5xx, and every 4xx is a JSON `{detail: string}`.
 */
import fc from 'fast-check'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { anyText } from '../support/any-text.js'
import { buildTestApp, type TestApp } from '../support/app.js'
import { createDemoDatabase, type DemoMarket } from '../support/demo-market.js'
import type { TestDatabase } from '../support/test-db.js'

interface Endpoint {
  readonly method: 'GET' | 'POST'
  readonly path: string
  readonly params: readonly string[]
}

const ENDPOINTS: readonly Endpoint[] = [
  { method: 'GET', path: '/health', params: [] },
  { method: 'GET', path: '/plan/dates', params: ['limit'] },
  { method: 'GET', path: '/plan', params: ['date', 'format', 'top', 'obs_top', 'theme_cap', 'nocache'] },
  { method: 'POST', path: '/plan/refresh', params: ['date'] },
  { method: 'GET', path: '/plan/verdict', params: ['codes', 'code', 'date'] },
  { method: 'GET', path: '/logic_state', params: ['codes', 'code', 'date'] },
  { method: 'GET', path: '/', params: [] },
  { method: 'GET', path: '/metrics', params: [] },
  { method: 'GET', path: '/openapi.json', params: [] },
]

/** Percent-encodes what encodeURIComponent can; a lone surrogate becomes the raw bytes of its UTF-16 unit. */
function encode(value: string): string {
  try {
    return encodeURIComponent(value)
  } catch {
    return [...value]
      .map((ch) => {
        try {
          return encodeURIComponent(ch)
        } catch {
          return `%${(ch.charCodeAt(0) >> 8).toString(16).padStart(2, '0')}%${(ch.charCodeAt(0) & 0xff).toString(16).padStart(2, '0')}`
        }
      })
      .join('')
  }
}

const NASTY = [
  '',
  ' ',
  '\u0000',
  '%00',
  '../',
  '../../../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '2024-01-02/../../../etc/passwd',
  '2024-01-02%00.json',
  '2024-01-02\u0000',
  '2024-01-02\n',
  ' 2024-01-02',
  '2024-1-2',
  '20240102',
  '0000-01-01',
  '0001-01-01',
  '9999-12-31',
  '2024-02-30',
  '2023-02-29',
  '2024-02-29',
  '+2024-01-02',
  '２０２４-０１-０２',
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  "' or 1=1 --",
  '"; drop table tier_scores; --',
  '\u0024{jndi:ldap://x}',
  '{{7*7}}',
  '__proto__',
  'constructor',
  'NaN',
  'Infinity',
  '-Infinity',
  '-0',
  '0',
  '1',
  '-1',
  '0x10',
  '0b11',
  '0o7',
  '1e2',
  '1E2',
  '1e400',
  '-1e400',
  '1e-400',
  '1.5',
  '.5',
  '5.',
  '1_000',
  '9007199254740993',
  '99999999999999999999999999',
  '2147483648',
  '-2147483649',
  'true',
  'false',
  'null',
  '[]',
  '{}',
  '[1,2]',
  'md',
  'MD',
  'json',
  '\u202emd',
  '😀',
  '\ud83d',
  '𝟙𝟚',
  '١٢',
  '600519.SH',
  'SH600519',
  '600519,000001,,  ,SZ000002',
]

/** Any value a query parameter could carry. */
const anyValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY) },
  { weight: 2, arbitrary: anyText({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 2, arbitrary: fc.integer({ min: -1_000_000, max: 1_000_000 }).map(String) },
  { weight: 1, arbitrary: fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }).map(String) },
  { weight: 1, arbitrary: fc.double().map(String) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: -99, max: 99 }), fc.constantFrom('e', 'E', 'e+', 'e-'), fc.integer({ min: 0, max: 500 }))
      .map(([m, e, x]) => `${m}${e}${x}`),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 19 }), fc.integer({ min: 0, max: 39 }))
      .map(([y, m, d]) => `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('x', '9', '%', '../', 'é', ','), fc.integer({ min: 1_000, max: 25_000 }))
      .map(([s, n]) => s.repeat(Math.ceil(n / s.length))),
  },
)

/** Raw (not encoded) query text: broken percent escapes, stray `&` and `=`, `+`, `;`. */
const rawValue: fc.Arbitrary<string> = fc
  .array(
    fc.constantFrom(
      '%',
      '%0',
      '%00',
      '%zz',
      '%ED%A0%80',
      '%C0%AF',
      '%2e%2e%2f',
      '&',
      '=',
      '+',
      ';',
      'a',
      '1',
      '-',
      '.',
      '/',
    ),
    {
      maxLength: 12,
    },
  )
  .map((parts) => parts.join(''))

/** One occurrence of a parameter in the query string. */
const occurrence = (name: string): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: anyValue.map((v) => `${name}=${encode(v)}`) },
    { weight: 1, arbitrary: rawValue.map((v) => `${name}=${v}`) },
    { weight: 1, arbitrary: fc.constant(name) },
    { weight: 1, arbitrary: fc.constant(`${name}=`) },
  )

/** Each parameter missing, once, or repeated (`?top=1&top=2`), plus now and then an unknown one, in any order. */
const queryFor = (params: readonly string[]): fc.Arbitrary<string> =>
  fc
    .tuple(
      ...params.map((name) => fc.array(occurrence(name), { maxLength: 3 })),
      fc.array(occurrence('zz_unknown'), { maxLength: 1 }),
    )
    .chain((groups) => fc.shuffledSubarray(groups.flat(), { minLength: groups.flat().length }))
    .map((parts) => parts.join('&'))

function expectNoServerError(res: LightMyRequestResponse, what: string): void {
  expect(res.statusCode, `${what} -> ${res.statusCode} ${res.body.slice(0, 300)}`).toBeLessThan(500)
  if (res.statusCode >= 400) {
    expect(res.headers['content-type'], what).toMatch(/^application\/json/)
    const body = res.json() as Record<string, unknown>
    expect(Object.keys(body), what).toEqual(['detail'])
    expect(typeof body.detail, what).toBe('string')
  }
}

describe('hostile query parameters', () => {
  let t: TestDatabase
  let demo: DemoMarket
  let built: TestApp
  let app: FastifyInstance

  beforeAll(async () => {
    ;[t, demo] = await createDemoDatabase({ stocks: 150, days: 70, history: 2 })
    built = await buildTestApp(t, demo.env)
    app = built.app
  })
  afterAll(async () => {
    await built?.close()
    await demo?.cleanup()
    await t?.drop()
  })

  for (const endpoint of ENDPOINTS) {
    it(`${endpoint.method} ${endpoint.path}: no 5xx, every 4xx is {detail}`, async () => {
      await fc.assert(
        fc.asyncProperty(queryFor(endpoint.params), async (query) => {
          const url = query === '' ? endpoint.path : `${endpoint.path}?${query}`
          const res = await app.inject({ method: endpoint.method, url })
          expectNoServerError(res, `${endpoint.method} ${url.slice(0, 300)}`)
        }),
        { numRuns: endpoint.params.length === 0 ? 25 : 120 },
      )
    })
  }

  it('answers hostile paths (bad percent-escapes, traversal, unknown routes) with a 4xx {detail}', async () => {
    const segment = fc.oneof(
      fc.constantFrom(
        'plan',
        'verdict',
        'dates',
        'refresh',
        'logic_state',
        'health',
        'api',
        'v1',
        'xxljob',
        '..',
        '.',
        '',
      ),
      fc.constantFrom('%', '%zz', '%E0', '%c0%af', '%2e%2e', '%2f', '%00', '%ED%A0%80', ';', '*', '~', '<script>'),
      anyText({ maxLength: 12 }).map(encode),
    )
    const target = fc
      .tuple(
        fc.array(segment, { minLength: 1, maxLength: 5 }),
        fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'),
      )
      .map(([parts, method]) => ({ url: `/${parts.join('/')}`, method: method as 'GET' | 'POST' }))
    await fc.assert(
      fc.asyncProperty(target, async ({ url, method }) => {
        const res = await app.inject({ method, url })
        expectNoServerError(res, `${method} ${url}`)
      }),
      { numRuns: 200 },
    )
    for (const url of ['/%zz', '/plan%E0', '/%', '/plan/%c0%af', '/..%2f..%2fetc%2fpasswd', '//plan', '/PLAN']) {
      const res = await app.inject(url)
      expect(res.statusCode, url).toBeGreaterThanOrEqual(400)
      expectNoServerError(res, url)
    }
  })

  it('answers every listed nasty value in every parameter of every endpoint', async () => {
    for (const endpoint of ENDPOINTS) {
      for (const name of endpoint.params) {
        for (const value of NASTY) {
          const url = `${endpoint.path}?${name}=${encode(value)}`
          expectNoServerError(await app.inject({ method: endpoint.method, url }), `${endpoint.method} ${url}`)
        }
      }
    }
  })

  it('answers the same values inside the market too (real dates, sizes at and beyond the bounds)', async () => {
    const date = fc.constantFrom(...demo.calendar.slice(-5), '1990-01-02', '2999-12-31')
    const size = fc.oneof(fc.integer({ min: -5, max: 260 }), fc.constantFrom(0, 1, 50, 51, 200, 201, 3650, 3651))
    const request = fc.oneof(
      fc
        .record({
          date,
          top: size,
          obs_top: size,
          theme_cap: size,
          nocache: fc.integer({ min: -2, max: 2 }),
          format: fc.constantFrom('md', 'json', 'x'),
        })
        .map(
          (q) => `/plan?${new URLSearchParams(Object.entries(q).map(([k, v]): [string, string] => [k, String(v)]))}`,
        ),
      fc.record({ limit: size }).map((q) => `/plan/dates?limit=${q.limit}`),
      date.map((d) => `/plan/verdict?date=${d}&codes=600000,000001.SZ,bad`),
      date.map((d) => `/logic_state?date=${d}&code=600000`),
    )
    await fc.assert(
      fc.asyncProperty(request, async (url) => {
        expectNoServerError(await app.inject(url), url)
      }),
      { numRuns: 60 },
    )
    const refresh = await app.inject({ method: 'POST', url: `/plan/refresh?date=${demo.planned.at(-1)}` })
    expect(refresh.statusCode).toBe(200)
  })
})
