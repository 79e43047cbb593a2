/**
 * Random code lists for `GET /plan/verdict` and `GET /logic_state` on a seeded demo market: up to the documented
 * per-request limit they answer one verdict entry per input (trimmed, empties dropped, order and duplicates
 * kept) and one logic-state entry per distinct normalised code plus one per bad input; over it, 422 `{detail}`.
 * Whether an input is a code at all is `parseCode`'s call (tested on its own in test/domain/codes.test.ts).
 */
import fc from 'fast-check'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_CODES } from '../../src/domain/code-list.js'
import { parseCode } from '../../src/domain/codes.js'
import { anyText } from '../support/any-text.js'
import { buildTestApp, type TestApp } from '../support/app.js'
import { createDemoDatabase, type DemoMarket } from '../support/demo-market.js'
import type { TestDatabase } from '../support/test-db.js'

/** The `maxLength` of `codes` and `code` in the route schemas (common.schema.ts): longer is a 422 too. */
const MAX_PARAM_CHARS = 20_000

const PAD = ['', '', '', ' ', '  ', '\t', '\n', '\u3000', '\u00a0', '\ufeff']
const DECISIONS = ['main', 'observe', 'reject', 'absent']
const VERDICT_KEYS = [
  'card_rank',
  'code',
  'decision',
  'graph_evidence',
  'heat',
  'input',
  'name',
  'rank',
  'reason',
  'score',
  'tier',
  'track',
  'transmission',
  'upside',
  'verdict_text',
  'components',
  'flags',
  'valuation_method',
  'tier_rule',
].sort()

type Kind = 'market' | 'absent' | 'bad' | 'any' | 'empty'
interface Item {
  readonly text: string
  readonly kind: Kind
}

/** The same code in one of its accepted spellings (suffix, prefix with or without a dot, bare; any case). */
const spelled = (code: string): fc.Arbitrary<string> => {
  const [symbol, exchange] = code.split('.') as [string, string]
  return fc
    .tuple(fc.constantFrom(code, `${exchange}${symbol}`, `${exchange}.${symbol}`, symbol), fc.boolean())
    .map(([form, lower]) => (lower ? form.toLowerCase() : form))
}

const padded = (text: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.tuple(fc.constantFrom(...PAD), text, fc.constantFrom(...PAD)).map(([a, s, b]) => `${a}${s}${b}`)

const BAD = [
  '60051',
  '6005190',
  '600519.SS',
  '600519.SZ',
  'SZ600519',
  'SH.600519.SH',
  'HK00700',
  '999999',
  '１２３４５６',
  '600519%00',
  '\u0000',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  "' or '1'='1",
  '600519 .SH',
  'AAPL',
  '😀',
  'x'.repeat(300),
]

/** Valid codes on every board; those the demo market happens to list are left out. */
const ABSENT = ['600001.SH', '601999.SH', '000999.SZ', '002999.SZ', '300999.SZ', '688999.SH', '830799.BJ', '920999.BJ']

function itemArbitrary(marketCodes: readonly string[]): fc.Arbitrary<Item> {
  const absent = ABSENT.filter((c) => !marketCodes.includes(c))
  return fc.oneof(
    {
      weight: 6,
      arbitrary: padded(fc.constantFrom(...marketCodes).chain(spelled)).map((text) => ({
        text,
        kind: 'market' as const,
      })),
    },
    {
      weight: 2,
      arbitrary: padded(fc.constantFrom(...absent).chain(spelled)).map((text) => ({ text, kind: 'absent' as const })),
    },
    { weight: 2, arbitrary: padded(fc.constantFrom(...BAD)).map((text) => ({ text, kind: 'bad' as const })) },
    {
      weight: 2,
      arbitrary: anyText({ maxLength: 12 }).map((text) => ({ text: text.replaceAll(',', ''), kind: 'any' as const })),
    },
    { weight: 1, arbitrary: fc.constantFrom(...PAD).map((text) => ({ text, kind: 'empty' as const })) },
  )
}

/** The items the service must see: split on commas, trimmed, empties dropped, order and duplicates kept. */
const itemsOf = (raw: string | undefined): string[] =>
  raw === undefined
    ? []
    : raw
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '')

interface Query {
  readonly codes?: string
  readonly code?: string
}

/** `codes` wins whenever it names at least one item. */
function expectedItems(q: Query): string[] {
  const fromCodes = itemsOf(q.codes)
  return fromCodes.length > 0 ? fromCodes : itemsOf(q.code)
}

function urlFor(path: string, q: Query, date: string | undefined): string {
  const params = new URLSearchParams()
  if (q.codes !== undefined) params.set('codes', q.codes)
  if (q.code !== undefined) params.set('code', q.code)
  if (date !== undefined) params.set('date', date)
  return `${path}?${params.toString().replaceAll('+', '%20')}`
}

describe('random code lists', () => {
  let t: TestDatabase
  let demo: DemoMarket
  let built: TestApp
  let app: FastifyInstance
  let marketCodes: string[]
  let list: fc.Arbitrary<Item[]>
  let query: fc.Arbitrary<{ q: Query; kinds: Map<string, Kind> }>
  let date: fc.Arbitrary<string | undefined>

  beforeAll(async () => {
    ;[t, demo] = await createDemoDatabase({ stocks: 150, days: 70, history: 2 })
    built = await buildTestApp(t, demo.env)
    app = built.app
    marketCodes = (await t.db.selectFrom('securities').select('code').orderBy('code').execute()).map((r) => r.code)
    const item = itemArbitrary(marketCodes)
    list = fc.oneof(
      { weight: 8, arbitrary: fc.array(item, { maxLength: 40 }) },
      { weight: 1, arbitrary: fc.array(item, { minLength: MAX_CODES - 20, maxLength: MAX_CODES + 20 }) },
    )
    const joined = list.map((items) => ({ text: items.map((i) => i.text).join(','), items }))
    query = fc
      .tuple(fc.option(joined, { nil: undefined }), fc.option(joined, { nil: undefined }))
      .map(([codes, code]) => {
        const kinds = new Map<string, Kind>()
        for (const i of [...(codes?.items ?? []), ...(code?.items ?? [])]) kinds.set(i.text.trim(), i.kind)
        return { q: { codes: codes?.text, code: code?.text }, kinds }
      })
    date = fc.constantFrom(undefined, ...demo.planned)
  })
  afterAll(async () => {
    await built?.close()
    await demo?.cleanup()
    await t?.drop()
  })

  /** 400 for no item, 422 over the item or character limit; undefined when the list is to be served. */
  function refusal(q: Query, items: readonly string[]): number | undefined {
    if ((q.codes?.length ?? 0) > MAX_PARAM_CHARS || (q.code?.length ?? 0) > MAX_PARAM_CHARS) return 422
    if (items.length === 0) return 400
    if (items.length > MAX_CODES) return 422
    return undefined
  }

  function expectDetail(res: { statusCode: number; json: () => unknown }, status: number, what: string): void {
    expect(res.statusCode, what).toBe(status)
    const body = res.json() as Record<string, unknown>
    expect(Object.keys(body)).toEqual(['detail'])
    expect(typeof body.detail).toBe('string')
  }

  it('GET /plan/verdict: one entry per input, in order, error entries for the bad ones', async () => {
    await fc.assert(
      fc.asyncProperty(query, date, async ({ q, kinds }, d) => {
        const items = expectedItems(q)
        const url = urlFor('/plan/verdict', q, d)
        const res = await app.inject(url)
        const refused = refusal(q, items)
        if (refused !== undefined) return expectDetail(res, refused, url.slice(0, 200))
        expect(res.statusCode, res.body.slice(0, 300)).toBe(200)
        const body = res.json() as { date: string; count: number; verdicts: Array<Record<string, unknown>> }
        expect(body.date).toBe(d ?? demo.planned.at(-1))
        expect(body.count).toBe(items.length)
        expect(body.verdicts.map((v) => v.input)).toEqual(items)
        body.verdicts.forEach((entry, i) => {
          const input = items[i]!
          const parsed = parseCode(input)
          const kind = kinds.get(input)
          if (kind === 'market' || kind === 'absent') expect(parsed.ok, input).toBe(true)
          if (kind === 'bad') expect(parsed.ok, input).toBe(false)
          if (!parsed.ok) {
            expect(Object.keys(entry).sort()).toEqual(['error', 'input'])
            expect(typeof entry.error).toBe('string')
            return
          }
          expect(Object.keys(entry).sort()).toEqual(VERDICT_KEYS)
          expect(entry.code).toBe(parsed.code)
          expect(DECISIONS).toContain(entry.decision)
          if (kind === 'absent') expect(entry.decision).toBe('absent')
        })
      }),
      { numRuns: 45 },
    )
  })

  it('GET /logic_state: one entry per distinct normalised code, then one per bad input', async () => {
    await fc.assert(
      fc.asyncProperty(query, date, async ({ q }, d) => {
        const items = expectedItems(q)
        const url = urlFor('/logic_state', q, d)
        const res = await app.inject(url)
        const refused = refusal(q, items)
        if (refused !== undefined) return expectDetail(res, refused, url.slice(0, 200))
        expect(res.statusCode, res.body.slice(0, 300)).toBe(200)
        const valid = new Map<string, string>()
        const bad: string[] = []
        for (const input of items) {
          const parsed = parseCode(input)
          if (!parsed.ok) bad.push(input)
          else if (!valid.has(parsed.code)) valid.set(parsed.code, input)
        }
        const body = res.json() as { date: string; count: number; states: Array<Record<string, unknown>> }
        expect(body.date).toBe(d ?? demo.planned.at(-1))
        expect(body.count).toBe(valid.size + bad.length)
        expect(body.states).toHaveLength(body.count)
        const head = body.states.slice(0, valid.size)
        const tail = body.states.slice(valid.size)
        expect(head.map((s) => [s.code, s.input])).toEqual([...valid])
        for (const s of head) expect(['daily', 'computed']).toContain(s.source)
        expect(tail.map((s) => s.input)).toEqual(bad)
        for (const s of tail) {
          expect(Object.keys(s).sort()).toEqual(['error', 'input'])
          expect(typeof s.error).toBe('string')
        }
      }),
      { numRuns: 35 },
    )
  })

  it('takes exactly MAX_CODES codes and refuses one more with 422 {detail}, on both endpoints', async () => {
    const codes = Array.from({ length: MAX_CODES + 1 }, (_, i) => marketCodes[i % marketCodes.length]!)
    for (const path of ['/plan/verdict', '/logic_state']) {
      const at = await app.inject(urlFor(path, { codes: codes.slice(0, MAX_CODES).join(',') }, undefined))
      expect(at.statusCode).toBe(200)
      expect(at.json().count).toBe(path === '/plan/verdict' ? MAX_CODES : marketCodes.length)
      const over = await app.inject(urlFor(path, { codes: codes.join(',') }, undefined))
      expectDetail(over, 422, path)
      expect(over.json().detail).toMatch(new RegExp(`${MAX_CODES + 1}.*${MAX_CODES}`))
      // empties do not count towards the limit
      const withEmpties = await app.inject(
        urlFor(path, { codes: `${codes.slice(0, MAX_CODES).join(',')},, ,` }, undefined),
      )
      expect(withEmpties.statusCode).toBe(200)
    }
  })
})
