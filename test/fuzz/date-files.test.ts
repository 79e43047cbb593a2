/**
 * A `date` query parameter reaches the file system only as a validated, real `YYYY-MM-DD`: every call into
 * `services.files` is recorded, traversal-looking dates are refused with 422, and no file appears outside
 * PLAN_DATA_DIR's own `snapshots/`, `plans/` and `pool/` folders.
 */
import { randomBytes } from 'node:crypto'
import { readdir } from 'node:fs/promises'
import path from 'node:path'
import fc from 'fast-check'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { anyText } from '../support/any-text.js'
import { buildTestApp, type TestApp } from '../support/app.js'
import { createDemoDatabase, type DemoMarket } from '../support/demo-market.js'
import type { TestDatabase } from '../support/test-db.js'

const SENTINEL = `stockplan-escape-${randomBytes(4).toString('hex')}`

const TRAVERSAL = [
  `../${SENTINEL}`,
  `../../../../tmp/${SENTINEL}`,
  `/tmp/${SENTINEL}`,
  `2024-01-02/../../${SENTINEL}`,
  `2024-01-02/../../../${SENTINEL}`,
  '2024-01-02/..',
  '2024-01-02/../2024-01-03',
  '..%2F..%2Fetc%2Fpasswd',
  '%2e%2e%2f%2e%2e%2f',
  '....//....//etc/passwd',
  '..\\..\\windows',
  '2024-01-02\u0000',
  '2024-01-02%00',
  '2024-01-02%00.json',
  '2024-01-02.json',
  '2024-01-02/',
  './2024-01-02',
  '~/2024-01-02',
  'file:///etc/passwd',
  '2024-01-02\n../x',
  '2024-01-02 ',
  '２０２４-０１-０２',
  '2024-01-02\u202e',
]

const ISO = /^\d{4}-\d{2}-\d{2}$/

/** A real date in the proleptic calendar PostgreSQL knows (no year zero). */
function isRealDate(date: string): boolean {
  if (!ISO.test(date) || date.startsWith('0000')) return false
  const d = new Date(`${date}T00:00:00Z`)
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === date
}

async function walk(dir: string): Promise<string[]> {
  const out: string[] = []
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) out.push(...(await walk(full)))
    else out.push(full)
  }
  return out
}

describe('a date never reaches the file system unvalidated', () => {
  let t: TestDatabase
  let demo: DemoMarket
  let built: TestApp
  let app: FastifyInstance
  /** The first argument of every call into services.files. */
  const seen: Array<{ fn: string; arg: unknown }> = []

  beforeAll(async () => {
    ;[t, demo] = await createDemoDatabase({ stocks: 150, days: 70, history: 2 })
    // nocache=1 and refresh write and read files on every request; the cache would hide them
    built = await buildTestApp(t, { ...demo.env, PLAN_CACHE_SEC: '0' })
    app = built.app
    const files = built.services.files as unknown as Record<string, unknown>
    for (const [fn, value] of Object.entries(files)) {
      if (typeof value !== 'function') continue
      const original = value as (...args: unknown[]) => unknown
      files[fn] = (...args: unknown[]) => {
        seen.push({ fn, arg: args[0] })
        return original(...args)
      }
    }
  })
  afterAll(async () => {
    await built?.close()
    await demo?.cleanup()
    await t?.drop()
  })

  it('answers traversal-looking dates with 422 {detail} on every endpoint that takes one, touching no file', async () => {
    const before = seen.length
    for (const value of TRAVERSAL) {
      for (const [method, route] of [
        ['GET', '/plan'],
        ['GET', '/plan?format=md&nocache=1'],
        ['POST', '/plan/refresh'],
        ['GET', '/plan/verdict?codes=600000'],
        ['GET', '/logic_state?codes=600000'],
      ] as const) {
        const encoded = value.includes('%') ? value : encodeURIComponent(value)
        const url = `${route}${route.includes('?') ? '&' : '?'}date=${encoded}`
        const res = await app.inject({ method, url })
        expect(res.statusCode, `${method} ${url}`).toBe(422)
        expect(Object.keys(res.json())).toEqual(['detail'])
        expect(res.json().detail).toBe('date must be a real calendar date, YYYY-MM-DD')
      }
    }
    expect(seen.slice(before)).toEqual([])
  })

  it('passes only real YYYY-MM-DD dates to services.files, whatever the query holds', async () => {
    const dateLike = fc.oneof(
      fc.constantFrom(
        ...TRAVERSAL,
        ...demo.planned,
        demo.calendar[0]!,
        '2024-02-29',
        '2023-02-29',
        '0000-01-01',
        '0001-01-01',
      ),
      fc
        .tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }))
        .map(
          ([y, m, d]) => `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`,
        ),
      anyText({ maxLength: 24 }),
      fc
        .constantFrom('.', '/', '\\', '-', '0', '9', '%00', '\u0000')
        .chain((c) =>
          fc.array(fc.constantFrom(c, '2024-01-02', '..', '/'), { maxLength: 6 }).map((parts) => parts.join('')),
        ),
    )
    const route = fc.constantFrom(
      ['GET', '/plan?nocache=1&date='],
      ['GET', '/plan?format=md&date='],
      ['POST', '/plan/refresh?date='],
      ['GET', '/plan/verdict?codes=600000,000001&date='],
      ['GET', '/logic_state?codes=600000&date='],
    )
    await fc.assert(
      fc.asyncProperty(route, dateLike, async ([method, prefix], date) => {
        const res = await app.inject({ method: method as 'GET' | 'POST', url: `${prefix}${encodeURIComponent(date)}` })
        expect(res.statusCode, `${prefix}${date}`).toBeLessThan(500)
        if (!isRealDate(date)) expect(res.statusCode, `${prefix}${JSON.stringify(date)}`).toBe(422)
      }),
      { numRuns: 150 },
    )
    expect(seen.length).toBeGreaterThan(0)
    for (const { fn, arg } of seen) {
      expect(typeof arg, fn).toBe('string')
      expect(isRealDate(arg as string), `${fn}(${JSON.stringify(arg)})`).toBe(true)
    }
  })

  it('writes only <PLAN_DATA_DIR>/{snapshots,plans,pool}/<date>.* and nothing beside it', async () => {
    const date = demo.planned.at(-1)!
    const refresh = await app.inject({ method: 'POST', url: `/plan/refresh?date=${date}` })
    expect(refresh.statusCode).toBe(200)
    const file = refresh.json().file as string
    expect(path.relative(demo.planDataDir, file)).toBe(path.join('plans', `${date}.md`))

    const root = path.dirname(demo.planDataDir)
    for (const f of await walk(root)) {
      const rel = path.relative(root, f)
      if (rel.startsWith(`market${path.sep}`)) continue // the demo market's CSV input
      expect(rel).toMatch(
        /^plan\/(snapshots\/\d{4}-\d{2}-\d{2}\.json|plans\/\d{4}-\d{2}-\d{2}\.md|pool\/\d{4}-\d{2}-\d{2}\.json)$/,
      )
      expect(rel).not.toContain(SENTINEL)
    }
    const tmp = path.dirname(root)
    expect((await readdir(tmp)).filter((name) => name.includes(SENTINEL))).toEqual([])
  })
})
