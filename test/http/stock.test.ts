import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../support/app.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'

const CODE = '600100.SH'
/** 80 weekdays from 2026-03-02. */
const DAYS = Array.from({ length: 112 }, (_, i) => new Date(Date.UTC(2026, 2, 2 + i)))
  .filter((d) => d.getUTCDay() !== 0 && d.getUTCDay() !== 6)
  .slice(0, 80)
  .map((d) => d.toISOString().slice(0, 10))
const SPLIT = 50 // from this day on the quote halves and the adjustment factor doubles
const SUSPENDED = 70

describe('GET /stock/{code}: forward-adjusted candles from the stored bars', () => {
  let t: TestDatabase
  let app: TestApp

  beforeAll(async () => {
    t = await createTestDatabase()
    await t.db
      .insertInto('securities')
      .values({
        code: CODE,
        name: '测试股份',
        exchange: 'SH',
        board: 'main',
        industry: '银行',
        list_date: '2020-01-02',
        delist_date: null,
      })
      .execute()
    await t.db
      .insertInto('daily_bars')
      .values(
        DAYS.map((trade_date, i) => {
          // the real price climbs 0.1 a day; after the split the quote is half of it
          const real = 10 + i * 0.1
          const adj = i >= SPLIT ? 2 : 1
          const close = real / adj
          return {
            code: CODE,
            trade_date,
            open: close,
            high: close * 1.01,
            low: close * 0.99,
            close,
            pre_close: null,
            volume: i === SUSPENDED ? 0 : 1000 + i,
            amount: 1e6,
            turnover_rate: 1,
            adj_factor: adj,
            is_suspended: i === SUSPENDED,
            is_st: false,
          }
        }),
      )
      .execute()
    await t.db
      .insertInto('daily_basics')
      .values([
        { code: CODE, trade_date: DAYS[60]!, pe_ttm: 8, pb: 0.9, total_mv: 5e10, circ_mv: 4e10 },
        { code: CODE, trade_date: DAYS[78]!, pe_ttm: 9.5, pb: 1.1, total_mv: 6e10, circ_mv: 4.5e10 },
      ])
      .execute()
    app = await buildTestApp(t)
  })
  afterAll(async () => {
    await app?.close()
    await t?.drop()
  })

  const get = (url: string) => app.app.inject(url)

  it('scales prices before a split to the last factor, leaves suspended days out, averages over the earlier history', async () => {
    const res = await get(`/stock/600100?date=${DAYS[79]}&days=20`)
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(body).toMatchObject({
      code: CODE,
      name: '测试股份',
      industry: '银行',
      date: DAYS[79],
      adjustment: 'forward',
    })
    const dates = DAYS.slice(59).filter((_, k) => k + 59 !== SUSPENDED)
    expect(body.bars.map((b: { date: string }) => b.date)).toEqual(dates)
    // adjusted to the last bar (factor 2): every close is the real price / 2, across the split
    const traded = DAYS.map((_, i) => i).filter((i) => i !== SUSPENDED)
    for (const bar of body.bars) {
      const i = DAYS.indexOf(bar.date)
      expect(bar.close).toBeCloseTo((10 + i * 0.1) / 2, 4)
    }
    // MA60 of the last bar: the 60 traded days before and including it, adjusted
    const last60 = traded.slice(-60).map((i) => (10 + i * 0.1) / 2)
    expect(body.bars.at(-1).ma60).toBeCloseTo(last60.reduce((a, b) => a + b, 0) / 60, 3)
    // the latest daily basics within 30 days of the date
    expect(body.fundamentals).toEqual({ date: DAYS[78], total_mv: 6e10, circ_mv: 4.5e10, pe_ttm: 9.5, pb: 1.1 })
    expect(body.marks).toEqual([])
  })

  it('before the split, the same history is adjusted to that day instead', async () => {
    const body = (await get(`/stock/${CODE}?date=${DAYS[SPLIT - 1]}&days=20`)).json()
    expect(body.bars.at(-1).close).toBeCloseTo(10 + (SPLIT - 1) * 0.1, 4)
    expect(body.fundamentals).toBeNull() // none on or before that day
  })

  it('refuses what is not a code and says so for a code the store does not know', async () => {
    const bad = await get('/stock/60010')
    expect(bad.statusCode).toBe(422)
    expect(bad.json().detail).toBe('"60010" is not a stock code: 5 digits, a symbol has 6')
    const unknown = await get(`/stock/600200.SH?date=${DAYS[10]}`)
    expect(unknown.statusCode).toBe(404)
    expect(unknown.json().detail).toBe('600200.SH is not in the store: no security row and no bars')
    expect((await get(`/stock/${CODE}?days=19&date=${DAYS[10]}`)).statusCode).toBe(422)
  })

  it('GET /stocks gives each code once with its fundamentals, and the bad inputs after', async () => {
    const res = await get(`/stocks?codes=${CODE},600100,60010&date=${DAYS[79]}`)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({
      date: DAYS[79],
      previous_date: null,
      stocks: [
        {
          input: CODE,
          code: CODE,
          name: '测试股份',
          industry: '银行',
          fundamentals: { date: DAYS[78], total_mv: 6e10, circ_mv: 4.5e10, pe_ttm: 9.5, pb: 1.1 },
          previous: null,
        },
        { input: '60010', error: '"60010" is not a stock code: 5 digits, a symbol has 6' },
      ],
    })
  })
})
