import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_CODES } from '../../src/domain/code-list.js'
import { roundTo } from '../../src/domain/stats.js'
import { createLogger } from '../../src/logger.js'
import { createLogicStateService } from '../../src/services/logic-state.service.js'
import { createDb } from '../../src/storage/db.js'
import { createLookupRepository } from '../../src/storage/lookup.repository.js'
import { buildTestApp, type TestApp } from '../support/app.js'
import { createDemoDatabase, type DemoMarket } from '../support/demo-market.js'
import { captureLog } from '../support/log-capture.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'
import { countingStore, DEAD_DATABASE_URL } from './lookup-support.js'

const STATE_KEYS = [
  'logic_state',
  'score',
  'score_ema',
  'score_pct',
  'pct_ema',
  'state_since',
  'days_in_state',
  'state_rule',
] as const
const VALUATION_KEYS = ['valuation', 'valuation_text']
const REVIEW_KEYS = ['company_review', 'company_review_text']
const BASE_KEYS = [
  'input',
  'code',
  'date',
  'source',
  'verdict',
  'card_rank',
  'plan_version',
  'code_version',
  ...STATE_KEYS,
  'note',
]

type Entry = Record<string, unknown> & { input: string; code: string; source: string }

const signal = new AbortController().signal

/**
 * The demo market planned on three days, then the next day built but not planned: that day has tier rows and no
 * stored daily rows, as on a morning before the plan job ran.
 */
describe('GET /logic_state on the demo market', () => {
  let t: TestDatabase
  let demo: DemoMarket
  let built: TestApp
  const extra: TestApp[] = []
  let planned: string
  let unplanned: string
  let tierCodes: string[]

  const get = (url: string, app: TestApp = built) => app.app.inject(url)

  beforeAll(async () => {
    ;[t, demo] = await createDemoDatabase({ history: 3, skipLast: 1 })
    planned = demo.planned.at(-1)!
    unplanned = demo.calendar.at(-1)!
    await demo.services.steps.build({ date: unplanned }, signal)
    built = await buildTestApp(t, demo.env)
    const rows = await t.db
      .selectFrom('tier_scores')
      .select('code')
      .where('trade_date', '=', planned)
      .orderBy('rank')
      .execute()
    tierCodes = rows.map((r) => r.code)
  })
  afterAll(async () => {
    for (const a of extra) await a.close()
    await built?.close()
    await demo?.cleanup()
    await t?.drop()
  })

  it('serves the stored daily row of the date with source daily, verdict, card_rank and plan_version', async () => {
    const codes = tierCodes.slice(0, 30)
    const body = (await get(`/logic_state?date=${planned}&codes=${codes.join(',')}`)).json()
    expect(Object.keys(body)).toEqual(['date', 'count', 'states'])
    expect(body).toMatchObject({ date: planned, count: codes.length })
    const stored = await t.db
      .selectFrom('stock_daily')
      .selectAll()
      .where('trade_date', '=', planned)
      .where('code', 'in', codes)
      .execute()
    const byCode = new Map(stored.map((r) => [r.code, r]))
    for (const entry of body.states as Entry[]) {
      const row = byCode.get(entry.code)!
      expect(Object.keys(entry)).toEqual([...BASE_KEYS, ...VALUATION_KEYS, ...REVIEW_KEYS])
      expect(entry).toMatchObject({
        input: entry.code,
        date: planned,
        source: 'daily',
        verdict: row.verdict,
        card_rank: row.card_rank,
        plan_version: row.plan_version,
        code_version: row.code_version,
        logic_state: row.logic_state,
        score: row.score,
        state_since: row.state_since,
        days_in_state: row.days_in_state,
        state_rule: row.state_rule,
        note: null,
      })
      expect(entry.score_ema).toBeCloseTo(row.score_ema, 2)
    }
  })

  it('computes the state where no row is stored for the date, exactly as the plan job then stores it', async () => {
    const codes = tierCodes.slice(0, 40)
    const before = (await get(`/logic_state?codes=${codes.join(',')}`)).json()
    expect(before.date).toBe(unplanned)
    for (const entry of before.states as Entry[]) {
      expect(entry).toMatchObject({
        source: 'computed',
        verdict: null,
        card_rank: null,
        plan_version: null,
        code_version: null,
      })
      expect(entry.note).toMatch(new RegExp(`stepped from the stored state of ${planned} over 1 tier date`))
    }
    // now the plan job runs for the day: the stored rows are what was computed
    await demo.services.steps.plan({ date: unplanned }, signal)
    built.services.logicStates.forgetDate(unplanned) // what the plan-written NOTIFY does in the server
    try {
      const after = (await get(`/logic_state?codes=${codes.join(',')}`)).json()
      for (const [i, entry] of (after.states as Entry[]).entries()) {
        expect(entry.source).toBe('daily')
        const computed = before.states[i] as Entry
        for (const key of STATE_KEYS) expect(computed[key], `${entry.code} ${key}`).toEqual(entry[key])
        expect(computed.valuation).toEqual(entry.valuation)
        expect(computed.company_review).toEqual(entry.company_review)
      }
    } finally {
      await t.db.deleteFrom('stock_daily').where('trade_date', '=', unplanned).execute()
      built.services.logicStates.forgetDate(unplanned)
    }
  })

  it('replays the tier history from scratch for a code with no stored state', async () => {
    const code = tierCodes[0]!
    const stored = await t.db.selectFrom('stock_daily').selectAll().where('code', '=', code).execute()
    const expected = (await get(`/logic_state?code=${code}&date=${planned}`)).json().states[0]
    await t.db.deleteFrom('stock_daily').where('code', '=', code).execute()
    built.services.logicStates.forgetDate(planned) // the stored rows changed (the plan-written NOTIFY's job)
    try {
      const entry = (await get(`/logic_state?code=${code}&date=${planned}`)).json().states[0]
      expect(entry).toMatchObject({
        source: 'computed',
        verdict: null,
        note: expect.stringMatching(/replayed over 3 tier dates/),
      })
      // the plan job stepped each day from the stored day before: replaying the same days gives the same state
      for (const key of STATE_KEYS) expect(entry[key], key).toEqual(expected[key])
    } finally {
      await t.db.insertInto('stock_daily').values(stored).execute()
      built.services.logicStates.forgetDate(planned)
    }
  })

  it('computes codes absent from the tier table: absent days from a stored state; null state with a note without any data', async () => {
    const code = tierCodes[1]!
    const stored = await t.db
      .selectFrom('tier_scores')
      .selectAll()
      .where('code', '=', code)
      .where('trade_date', '=', unplanned)
      .execute()
    await t.db.deleteFrom('tier_scores').where('code', '=', code).where('trade_date', '=', unplanned).execute()
    built.services.logicStates.clear() // the tier rows changed (the tier-table NOTIFY's job)
    try {
      const body = (await get(`/logic_state?codes=${code},600000`)).json()
      const [absent, unknown] = body.states as [Entry, Entry]
      expect(absent).toMatchObject({
        code,
        source: 'computed',
        score: null,
        note: expect.stringMatching(/over 1 tier date/),
      })
      expect(absent.logic_state).toEqual(expect.any(String))
      expect(unknown).toMatchObject({
        input: '600000',
        code: '600000.SH',
        source: 'computed',
        note: expect.stringMatching(/no logic state/),
      })
      for (const key of STATE_KEYS) expect(unknown[key], key).toBeNull()
      expect(unknown).toMatchObject({
        valuation: null,
        valuation_text: null,
        company_review: null,
        company_review_text: null,
      })
    } finally {
      await t.db
        .insertInto('tier_scores')
        .values(
          stored.map((r) => ({
            ...r,
            graph_evidence: JSON.stringify(r.graph_evidence),
            flags: JSON.stringify(r.flags),
            signals: JSON.stringify(r.signals),
            points: JSON.stringify(r.points),
          })),
        )
        .execute()
      built.services.logicStates.clear()
    }
  })

  it('merges codes that normalise to one code, keeping the first input; error entries come after the valid ones', async () => {
    const [a, b] = tierCodes as [string, string]
    const symbol = a.split('.')[0]!
    const query = encodeURIComponent(
      ` ${symbol} ,12345,${a},${b.toLowerCase()}, ,${a.slice(-2)}${symbol},600519.SZ,${b}`,
    )
    const res = await get(`/logic_state?date=${planned}&codes=${query}&code=${tierCodes[5]}`)
    // the body is spliced from kept bytes: exactly the service's lookup as JSON
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8')
    const codes = decodeURIComponent(query)
      .split(',')
      .map((c) => c.trim())
      .filter((c) => c !== '')
    expect(res.body).toBe(JSON.stringify(await built.services.logicStates.lookup({ codes, date: planned })))
    const body = res.json()
    expect(body.states.map((s: Entry) => s.input)).toEqual([symbol, b.toLowerCase(), '12345', '600519.SZ'])
    expect(body.states.map((s: Entry) => s.code)).toEqual([a, b, undefined, undefined])
    expect(body.count).toBe(4)
    for (const e of body.states.slice(2)) {
      expect(Object.keys(e).sort()).toEqual(['error', 'input'])
      expect(typeof e.error).toBe('string')
    }
    // only errors: still 200
    const errors = await get('/logic_state?codes=1,2')
    expect(errors.json()).toMatchObject({ count: 2, states: [{ input: '1' }, { input: '2' }] })
    expect(errors.body).toBe(JSON.stringify(await built.services.logicStates.lookup({ codes: ['1', '2'] })))
  })

  it('attaches the valuation the build used: its neutral value gives the tier table upside', async () => {
    const codes = tierCodes.slice(0, 80)
    const body = (await get(`/logic_state?date=${planned}&codes=${codes.join(',')}`)).json()
    const tier = await t.db
      .selectFrom('tier_scores')
      .select(['code', 'upside', 'close'])
      .where('trade_date', '=', planned)
      .where('code', 'in', codes)
      .execute()
    const byCode = new Map(tier.map((r) => [r.code, r]))
    let valued = 0
    let reviewed = 0
    for (const entry of body.states as Array<
      Entry & { valuation: { reference_target: number; price: number } | null }
    >) {
      const row = byCode.get(entry.code)!
      if (entry.valuation === null) {
        expect(row.upside).toBeNull()
        expect(entry.valuation_text).toBeNull()
      } else {
        valued++
        expect(entry.valuation.price).toBe(row.close)
        // the build stores upside to 3 decimals
        expect(roundTo(entry.valuation.reference_target / entry.valuation.price - 1, 3)).toBe(row.upside)
        expect(entry.valuation_text).toMatch(/^neutral /)
      }
      if (entry.company_review !== null) {
        reviewed++
        expect(entry.company_review_text).toMatch(/^[ABCD] \(\d+\)/)
      }
    }
    expect(valued).toBeGreaterThan(0)
    expect(reviewed).toBeGreaterThan(0)
  })

  it("reads the same PE percentiles and day's PE as the build's repository (peStats, basicsOn)", async () => {
    const codes = [...tierCodes, '600000.SH']
    const lookups = createLookupRepository(t.db)
    const [facts, stats, basics] = await Promise.all([
      lookups.peFacts(planned, codes),
      demo.services.market.peStats(planned, codes),
      demo.services.market.basicsOn(planned, codes),
    ])
    expect(stats.size).toBeGreaterThan(0)
    for (const code of codes) {
      expect(facts.get(code)?.pe ?? null, code).toEqual(stats.get(code) ?? null)
      expect(facts.get(code)?.peToday ?? null, code).toBe(basics.get(code)?.pe_ttm ?? null)
    }
    const closes = await lookups.closesOn(planned, codes)
    const bars = await demo.services.market.bars(planned, planned, codes)
    expect(closes).toEqual(new Map([...bars].map(([code, series]) => [code, series.close.at(-1)])))
  })

  it('leaves the valuation keys out of every entry when computing it fails, logs a warning and still returns the states', async () => {
    const captured = captureLog()
    const app = await buildTestApp(t, demo.env, { log: captured.log })
    extra.push(app)
    const failing = (facts: Parameters<typeof createLogicStateService>[0]['facts']) =>
      createLogicStateService({
        lookups: createLookupRepository(t.db),
        market: app.services.market,
        latestDate: app.services.latestDate,
        log: captured.log,
        facts,
      })
    const codes = [...tierCodes.slice(0, 5), '600000']
    const boom = () => {
      throw new Error('valuation exploded')
    }
    const noValuation = await failing({ valuation: boom }).lookup({ codes, date: planned })
    expect(noValuation.count).toBe(codes.length)
    for (const entry of noValuation.states) expect(Object.keys(entry)).toEqual([...BASE_KEYS, ...REVIEW_KEYS])
    for (const entry of noValuation.states.slice(0, 5)) {
      expect(entry).toMatchObject({ source: 'daily', logic_state: expect.any(String) })
    }
    const warning = captured.lines.find((l) => l.msg === 'valuation left out: computing it failed')
    expect(warning).toMatchObject({ level: 40, group: 'valuation', err: { message: 'valuation exploded' } })

    const noReview = await failing({ review: boom }).lookup({ codes, date: planned })
    for (const entry of noReview.states) expect(Object.keys(entry)).toEqual([...BASE_KEYS, ...VALUATION_KEYS])
  })

  it('through HTTP too: a failing group is absent from all entries', async () => {
    const app = await buildTestApp(t, demo.env)
    extra.push(app)
    const { buildApp } = await import('../../src/http/app.js')
    const server = await buildApp({
      ...app.services,
      logicStates: createLogicStateService({
        lookups: createLookupRepository(t.db),
        market: app.services.market,
        latestDate: app.services.latestDate,
        log: app.services.log,
        facts: {
          valuation: () => {
            throw new TypeError('no price')
          },
        },
      }),
    })
    try {
      const res = await server.inject(`/logic_state?date=${planned}&codes=${tierCodes.slice(0, 3).join(',')},bad`)
      expect(res.statusCode).toBe(200)
      const body = res.json()
      expect(body.count).toBe(4)
      for (const entry of body.states.slice(0, 3)) {
        expect(entry).not.toHaveProperty('valuation')
        expect(entry).not.toHaveProperty('valuation_text')
        expect(entry).toHaveProperty('company_review')
        expect(entry.logic_state).toEqual(expect.any(String))
      }
      expect(body.states[3]).toEqual({ input: 'bad', error: expect.any(String) })
    } finally {
      await server.close()
    }
  })

  it('answers 400 without a code, 404 for an empty tier table, 422 beyond the limit or for a bad date', async () => {
    for (const query of ['', '?codes=', '?code=%20', '?codes=,,']) {
      const res = await get(`/logic_state${query}`)
      expect(res.statusCode, query).toBe(400)
      expect(res.json()).toEqual({ detail: expect.any(String) })
    }
    const over = await get(
      `/logic_state?codes=${Array(MAX_CODES + 1)
        .fill('600519')
        .join(',')}`,
    )
    expect(over.statusCode).toBe(422)
    expect((await get('/logic_state?code=600519&date=2026-13-01')).statusCode).toBe(422)
    const empty = await createTestDatabase()
    try {
      const app = await buildTestApp(empty, demo.env)
      const res = await app.app.inject('/logic_state?codes=600519')
      await app.close()
      expect(res.statusCode).toBe(404)
      expect(res.json().detail).toMatch(/tier table is empty.*build/)
    } finally {
      await empty.drop()
    }
  })

  it('answers 500 with the failure text when the store is not there', async () => {
    const dead = createDb(DEAD_DATABASE_URL, createLogger({ logLevel: 'silent' }))
    const app = await buildTestApp(dead, demo.env)
    try {
      for (const query of ['codes=600519', `codes=600519&date=${planned}`]) {
        const res = await app.app.inject(`/logic_state?${query}`)
        expect(res.statusCode, query).toBe(500)
        expect(res.json()).toEqual({ detail: 'connect ECONNREFUSED ***' })
      }
    } finally {
      await app.close()
      await dead.db.destroy()
    }
  })

  it('reads each table once per request, whatever the number of codes, computed ones included', async () => {
    const store = countingStore(t)
    const app = await buildTestApp(store, demo.env)
    extra.push(app)
    const counts: Array<Record<string, number>> = []
    for (const [date, n] of [
      [unplanned, 1],
      [unplanned, 60],
      [unplanned, 300],
      [planned, 60],
    ] as const) {
      store.reset()
      const body = (await app.app.inject(`/logic_state?date=${date}&codes=${tierCodes.slice(0, n).join(',')}`)).json()
      expect(body.count).toBe(n)
      counts.push(store.perTable())
    }
    const reads = { stock_daily: 1, daily_bars: 1, daily_basics: 1, eps_forecasts: 1, financials: 1 }
    expect(counts[0]).toEqual({ ...reads, tier_scores: 1 })
    expect(counts[1]).toEqual(counts[0])
    expect(counts[2]).toEqual(counts[0])
    expect(counts[3]).toEqual(reads) // all daily: no tier history needed
    // the same codes again read nothing: a date's entries do not change until its build or plan is rewritten
    store.reset()
    const again = (
      await app.app.inject(`/logic_state?date=${unplanned}&codes=${tierCodes.slice(0, 300).join(',')}`)
    ).json()
    expect(again.count).toBe(300)
    expect(store.perTable()).toEqual({})
  })
})
