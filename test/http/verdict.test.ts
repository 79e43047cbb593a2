import fc from 'fast-check'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_CODES } from '../../src/domain/code-list.js'
import { createLogger } from '../../src/logger.js'
import { createDb } from '../../src/storage/db.js'
import { buildTestApp, type TestApp } from '../support/app.js'
import { createDemoDatabase, type DemoMarket } from '../support/demo-market.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'
import { countingStore, DEAD_DATABASE_URL } from './lookup-support.js'

interface PlanRow {
  code: string
  verdict_text: string
  card_rank: number
}

const DETAIL_KEYS = [
  'score',
  'rank',
  'tier',
  'upside',
  'heat',
  'transmission',
  'track',
  'graph_evidence',
  'components',
  'flags',
  'valuation_method',
  'tier_rule',
] as const
const ENTRY_KEYS = ['input', 'code', 'name', 'decision', 'reason', 'verdict_text', ...DETAIL_KEYS, 'card_rank'].sort()

/** The same code in the three accepted forms. */
const forms = (code: string): string[] => {
  const [symbol, exchange] = code.split('.') as [string, string]
  return [code, `${exchange}${symbol}`, symbol, code.toLowerCase()]
}

describe('GET /plan/verdict on the demo market', () => {
  let t: TestDatabase
  let demo: DemoMarket
  let latest: string
  let earlier: string
  let built: TestApp
  const extra: TestApp[] = []
  /** Per planned date: tier codes, GET /plan main/observe at default sizes. */
  const days = new Map<string, { tier: Set<string>; main: PlanRow[]; observe: PlanRow[] }>()
  let securities: string[]
  let notInTier: string[]
  let held: string[]

  const get = (url: string) => built.app.inject(url)

  beforeAll(async () => {
    ;[t, demo] = await createDemoDatabase({ history: 2 })
    latest = demo.planned.at(-1)!
    earlier = demo.planned[0]!
    built = await buildTestApp(t, demo.env)
    for (const date of demo.planned) {
      const plan = (await get(`/plan?date=${date}`)).json()
      const tier = await t.db.selectFrom('tier_scores').select('code').where('trade_date', '=', date).execute()
      days.set(date, { tier: new Set(tier.map((r) => r.code)), main: plan.main, observe: plan.observe })
    }
    securities = (await t.db.selectFrom('securities').select('code').orderBy('code').execute()).map((r) => r.code)
    notInTier = securities.filter((c) => !days.get(latest)!.tier.has(c))
    held = (await t.db.selectFrom('holdings').select('code').where('qty', '>', 0).execute()).map((r) => r.code)
  })
  afterAll(async () => {
    for (const a of extra) await a.close()
    await built?.close()
    await demo?.cleanup()
    await t?.drop()
  })

  it('answers {date, stale, count, verdicts} for the latest tier date by default, stale from the build record', async () => {
    const main = days.get(latest)!.main[0]!
    const res = await get(`/plan/verdict?code=${main.code}`)
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(Object.keys(body)).toEqual(['date', 'stale', 'count', 'verdicts'])
    const build = await t.db
      .selectFrom('builds')
      .select('stale')
      .where('trade_date', '=', latest)
      .orderBy('finished_at', 'desc')
      .executeTakeFirstOrThrow()
    expect(body).toMatchObject({ date: latest, stale: build.stale, count: 1 })
    expect(Object.keys(body.verdicts[0]).sort()).toEqual(ENTRY_KEYS)
  })

  it('takes codes over code, trims items, drops empty ones and keeps order and duplicates', async () => {
    const [a, b] = days.get(latest)!.main.map((r) => r.code) as [string, string]
    const other = days.get(latest)!.observe[0]!.code
    const body = (await get(`/plan/verdict?code=${other}&codes=${encodeURIComponent(` ${a} ,, ${b},${a} , `)}`)).json()
    expect(body.verdicts.map((v: { input: string }) => v.input)).toEqual([a, b, a])
    expect(body.count).toBe(3)
    expect(body.verdicts[0]).toEqual(body.verdicts[2])
    // code alone, and a comma list in code
    expect((await get(`/plan/verdict?code=${other}`)).json().verdicts.map((v: { code: string }) => v.code)).toEqual([
      other,
    ])
    const list = (await get(`/plan/verdict?code=${a},${other}`)).json()
    expect(list.verdicts.map((v: { code: string }) => v.code)).toEqual([a, other])
    // an empty codes does not hide code
    expect((await get(`/plan/verdict?codes=&code=${other}`)).json().verdicts[0].code).toBe(other)
  })

  it('accepts the three code forms, keeping each input as sent', async () => {
    const code = days.get(latest)!.main[1]!.code
    const body = (await get(`/plan/verdict?codes=${forms(code).join(',')}`)).json()
    expect(body.verdicts.map((v: { input: string }) => v.input)).toEqual(forms(code))
    for (const v of body.verdicts) expect(v).toMatchObject({ code, decision: 'main' })
  })

  it('puts error entries where their input was: {input, error} for an unrecognised form', async () => {
    const main = days.get(latest)!.main[0]!.code
    const body = (await get(`/plan/verdict?codes=12345,${main},600519.SZ,ABC,${main}`)).json()
    expect(body.count).toBe(5)
    expect(body.verdicts.map((v: { input: string }) => v.input)).toEqual(['12345', main, '600519.SZ', 'ABC', main])
    for (const i of [0, 2, 3]) {
      expect(Object.keys(body.verdicts[i]).sort()).toEqual(['error', 'input'])
      expect(typeof body.verdicts[i].error).toBe('string')
    }
    expect(body.verdicts[0].error).toMatch(/6/)
    expect(body.verdicts[2].error).toMatch(/SZ.*SH/)
    expect(body.verdicts[1]).toMatchObject({ decision: 'main' })
  })

  it('gives {input, code, error: "<ExceptionType>: <message>"} for a per-stock data failure, the batch still answered', async () => {
    const [bad, good] = days.get(latest)!.main.map((r) => r.code) as [string, string]
    await sql`update tier_scores set score = 'NaN' where trade_date = ${latest}::date and code = ${bad}`.execute(t.db)
    built.services.verdicts.clear() // as a build rewriting the tier rows does (the tier-table NOTIFY in the server)
    try {
      const body = (await get(`/plan/verdict?codes=${good},${bad.split('.')[0]}`)).json()
      expect(body.verdicts[0]).toMatchObject({ input: good, decision: 'main' })
      expect(body.verdicts[1]).toEqual({
        input: bad.split('.')[0],
        code: bad,
        error: `TierDataError: tier row of ${bad} on ${latest} has a non-finite score (NaN)`,
      })
    } finally {
      const score = days.get(latest)!.main.find((r) => r.code === bad) as unknown as { score: number }
      await sql`update tier_scores set score = ${score.score} where trade_date = ${latest}::date and code = ${bad}`.execute(
        t.db,
      )
      built.services.verdicts.clear()
    }
  })

  it('main and observe rows carry the plan row verdict_text and card_rank; details come from the tier table', async () => {
    const { main, observe } = days.get(latest)!
    const codes = [...main, ...observe].map((r) => r.code)
    const body = (await get(`/plan/verdict?codes=${codes.join(',')}`)).json()
    const tier = await t.db
      .selectFrom('tier_scores')
      .selectAll()
      .where('trade_date', '=', latest)
      .where('code', 'in', codes)
      .execute()
    const byCode = new Map(tier.map((r) => [r.code, r]))
    for (const [i, row] of [...main, ...observe].entries()) {
      const v = body.verdicts[i]
      const decision = i < main.length ? 'main' : 'observe'
      expect(v).toMatchObject({ decision, reason: null, card_rank: row.card_rank, verdict_text: row.verdict_text })
      const stored = byCode.get(row.code)!
      for (const key of DETAIL_KEYS.filter((k) => k !== 'components')) expect(v[key], key).toEqual(stored[key])
      expect(v.components).toEqual(stored.points)
      expect(v.name).toBe(stored.name)
    }
  })

  it('rejects with a stable reason and says why; absent codes have null details and a known name', async () => {
    const { main, observe, tier } = days.get(latest)!
    const selected = new Set([...main, ...observe].map((r) => r.code))
    const rejected = [...tier].filter((c) => !selected.has(c)).slice(0, 40)
    const heldInTier = held.filter((c) => tier.has(c))
    const body = (await get(`/plan/verdict?codes=${[...rejected, ...heldInTier].join(',')}`)).json()
    const reasons = [
      'held',
      'b_share',
      'suspended',
      'st',
      'new_listing',
      'illiquid',
      'theme_cap',
      'beyond_top',
      'beyond_obs_top',
      'tier_reject',
    ]
    for (const v of body.verdicts) {
      expect(v.decision).toBe('reject')
      expect(reasons).toContain(v.reason)
      expect(v.verdict_text).toMatch(/^reject: /)
      expect(v.card_rank).toBeNull()
      expect(v.score).toEqual(expect.any(Number))
    }
    expect(heldInTier.length).toBeGreaterThan(0)
    for (const v of body.verdicts.slice(rejected.length)) {
      expect(v).toMatchObject({ reason: 'held', verdict_text: expect.stringContaining('held in the portfolio') })
    }

    // a listed security the build did not score (the demo scores every one): an absent code with a name
    const known = notInTier[0] ?? '603999.SH'
    if (!notInTier.includes(known)) {
      await t.db
        .insertInto('securities')
        .values({
          code: known,
          name: 'Not Scored Co',
          exchange: 'SH',
          board: 'main',
          industry: null,
          list_date: null,
          delist_date: null,
        })
        .execute()
    }
    const absent = (await get(`/plan/verdict?codes=${known},600000`)).json()
    const name = await t.db.selectFrom('securities').select('name').where('code', '=', known).executeTakeFirstOrThrow()
    expect(absent.verdicts[0]).toEqual({
      input: known,
      code: known,
      name: name.name,
      decision: 'absent',
      reason: 'not_in_tier_table',
      verdict_text: `absent: not in the tier table of ${latest}`,
      score: null,
      rank: null,
      tier: null,
      upside: null,
      heat: null,
      transmission: null,
      track: null,
      graph_evidence: null,
      card_rank: null,
      components: null,
      flags: [],
      valuation_method: null,
      tier_rule: null,
    })
    if (!securities.includes('600000.SH'))
      expect(absent.verdicts[1]).toMatchObject({ code: '600000.SH', name: null, decision: 'absent' })
  })

  it("the body is the service's lookup as JSON, spliced from entries kept per date; a new holding shows at once", async () => {
    const { main, observe, tier } = days.get(latest)!
    const selected = new Set([...main, ...observe].map((r) => r.code))
    const heldSet = new Set(held)
    const [rejected, other] = [...tier].filter((c) => !selected.has(c) && !heldSet.has(c)) as [string, string]
    const heldInTier = held.filter((c) => tier.has(c)).slice(0, 2)
    const codes = [
      main[0]!.code,
      observe[0]!.code,
      rejected,
      other,
      ...heldInTier,
      forms(main[0]!.code)[1]!, // a duplicate in another form
      notInTier[0] ?? '603999.SH',
      '600000',
      'XYZ',
    ]
    const url = `/plan/verdict?date=${latest}&codes=${codes.join(',')}`
    const expected = async () => JSON.stringify(await built.services.verdicts.lookup({ codes, date: latest }))
    const first = await get(url)
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8')
    expect(first.body).toBe(await expected())
    expect((await get(url)).body).toBe(first.body) // now from the kept entries

    await t.db
      .insertInto('holdings')
      .values({ code: rejected, qty: 100, cost_price: null, updated_at: latest, as_of: latest })
      .execute()
    try {
      const now = await get(url)
      expect(now.json().verdicts[2]).toMatchObject({ code: rejected, decision: 'reject', reason: 'held' })
      expect(now.json().verdicts[3]).toEqual(first.json().verdicts[3])
      expect(now.body).toBe(await expected())
    } finally {
      await t.db.deleteFrom('holdings').where('code', '=', rejected).where('as_of', '=', latest).execute()
    }
    expect((await get(url)).body).toBe(first.body)
  })

  it('answers for a chosen tier date; 404 for a date without tier rows; 422 for a malformed date', async () => {
    const code = days.get(earlier)!.main[0]!.code
    const body = (await get(`/plan/verdict?codes=${code}&date=${earlier}`)).json()
    expect(body).toMatchObject({ date: earlier, verdicts: [{ code, decision: 'main' }] })
    const none = await get(`/plan/verdict?codes=${code}&date=2001-01-02`)
    expect(none.statusCode).toBe(404)
    expect(none.json().detail).toMatch(/2001-01-02.*build/)
    for (const bad of ['2026-02-30', '20261120', 'x']) {
      const res = await get(`/plan/verdict?codes=${code}&date=${bad}`)
      expect(res.statusCode, bad).toBe(422)
      expect(Object.keys(res.json())).toEqual(['detail'])
    }
  })

  it('answers 400 {detail} when no code remains after trimming', async () => {
    for (const query of ['', '?codes=', '?codes=%20,%20,', '?code=,', '?codes=,&code=%20']) {
      const res = await get(`/plan/verdict${query}`)
      expect(res.statusCode, query).toBe(400)
      expect(res.json()).toEqual({ detail: expect.stringMatching(/no code/) })
    }
  })

  it(`refuses more than ${MAX_CODES} codes with 422 {detail}`, async () => {
    const code = days.get(latest)!.main[0]!.code.slice(0, 6)
    const ok = await get(`/plan/verdict?codes=${Array(MAX_CODES).fill(code).join(',')}`)
    expect(ok.statusCode).toBe(200)
    expect(ok.json().count).toBe(MAX_CODES)
    const res = await get(
      `/plan/verdict?codes=${Array(MAX_CODES + 1)
        .fill(code)
        .join(',')}`,
    )
    expect(res.statusCode).toBe(422)
    expect(res.json().detail).toMatch(new RegExp(`at most ${MAX_CODES}`))
  })

  it('is documented in the OpenAPI document with its limit and error answers', async () => {
    const doc = (await get('/openapi.json')).json()
    for (const route of ['/plan/verdict', '/logic_state']) {
      const op = doc.paths[route].get
      expect(op.description, route).toContain(`At most ${MAX_CODES} codes`)
      expect(Object.keys(op.responses).sort(), route).toEqual(['200', '400', '403', '404', '422', '431', '500'])
    }
  })

  it('answers 404 telling to run the build when the tier table is empty', async () => {
    const empty = await createTestDatabase()
    try {
      const app = await buildTestApp(empty, demo.env)
      extra.push(app)
      const res = await app.app.inject('/plan/verdict?codes=600519')
      expect(res.statusCode).toBe(404)
      expect(res.json().detail).toMatch(/tier table is empty.*build/)
    } finally {
      await extra.pop()?.close()
      await empty.drop()
    }
  })

  it('answers 500 with the failure text when the store is not there, never a stack or SQL', async () => {
    const dead = createDb(DEAD_DATABASE_URL, createLogger({ logLevel: 'silent' }))
    const app = await buildTestApp(dead, demo.env)
    try {
      for (const query of ['codes=600519', `codes=600519&date=${latest}`]) {
        const res = await app.app.inject(`/plan/verdict?${query}`)
        expect(res.statusCode, query).toBe(500)
        expect(res.json()).toEqual({ detail: 'connect ECONNREFUSED ***' })
      }
    } finally {
      await app.close()
      await dead.db.destroy()
    }
  })

  it("reads the date's tier data once, holdings once per request and names only for codes outside it", async () => {
    const store = countingStore(t)
    const app = await buildTestApp(store, demo.env)
    extra.push(app)
    const perTable: Array<Record<string, number>> = []
    const tierCodes = [...days.get(latest)!.tier]
    const unknown = '900999.SH'
    expect(tierCodes).not.toContain(unknown)
    for (const codes of [[tierCodes[0]!, unknown], [...tierCodes.slice(0, 50), unknown], tierCodes.slice(0, 300)]) {
      store.reset()
      const res = await app.app.inject(`/plan/verdict?date=${latest}&codes=${codes.join(',')}`)
      expect(res.json().count).toBe(codes.length)
      perTable.push(store.perTable())
    }
    expect(perTable[0]).toEqual({ tier_scores: 1, securities: 1, builds: 1, holdings: 1 })
    expect(perTable[1]).toEqual({ securities: 1, holdings: 1 })
    // every code named by its tier row: no names read
    expect(perTable[2]).toEqual({ holdings: 1 })
    // a build for the date (here: its cache dropped as the tier-table NOTIFY does) reads the tier data again
    app.services.verdicts.clear()
    store.reset()
    await app.app.inject(`/plan/verdict?date=${latest}&codes=${tierCodes[0]},${unknown}`)
    expect(store.perTable()).toEqual(perTable[0])
  })

  it('property: the decision is the code membership in GET /plan at default sizes (snapshot and live)', async () => {
    const live = await buildTestApp(t, { ...demo.env, PLAN_FROM_SNAPSHOT: 'no' })
    extra.push(live)
    const pool = [...securities, '600000.SH', '000002.SZ', '300999.SZ']
    const expected = (date: string, code: string): string => {
      const day = days.get(date)!
      if (day.main.some((r) => r.code === code)) return 'main'
      if (day.observe.some((r) => r.code === code)) return 'observe'
      return day.tier.has(code) ? 'reject' : 'absent'
    }
    // bias towards the interesting codes: selected, held and rejected ones
    const interesting = [
      ...new Set([...days.values()].flatMap((d) => [...d.main, ...d.observe].map((r) => r.code)).concat(held)),
    ]
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...demo.planned),
        fc.boolean(),
        fc.array(fc.tuple(fc.oneof(fc.constantFrom(...pool), fc.constantFrom(...interesting)), fc.nat(3)), {
          minLength: 1,
          maxLength: 40,
        }),
        async (date, useLive, picks) => {
          const inputs = picks.map(([code, form]) => forms(code)[form]!)
          const server = useLive ? live.app : built.app
          const res = await server.inject(`/plan/verdict?date=${date}&codes=${inputs.join(',')}`)
          expect(res.statusCode).toBe(200)
          const body = res.json()
          expect(body.count).toBe(inputs.length)
          for (const [i, [code]] of picks.entries()) {
            expect(body.verdicts[i]).toMatchObject({ input: inputs[i], code, decision: expected(date, code) })
          }
        },
      ),
      { numRuns: 40 },
    )
  })
})
