import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServices, type Services } from '../../src/compose.js'
import { createLogger } from '../../src/logger.js'
import { testConfig } from '../support/config.js'
import { insertSecurities } from '../support/securities.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'

const DAYS = [
  '2024-03-01',
  '2024-03-04',
  '2024-03-05',
  '2024-03-06',
  '2024-03-07',
  '2024-03-08',
  '2024-03-11',
  '2024-03-12',
  '2024-03-13',
  '2024-03-14',
  '2024-03-15',
  '2024-03-18',
]
const CODES = ['600001.SH', '600002.SH', '600003.SH', '300001.SZ', '600004.SH', '600005.SH']
const signal = new AbortController().signal

interface Bar {
  code: string
  day: number
  open: number
  close: number
  pre: number
  adj?: number
  suspended?: boolean
}

describe('outcomes step', () => {
  let t: TestDatabase
  let services: Services
  beforeAll(async () => {
    t = await createTestDatabase()
    services = createServices(testConfig(), createLogger(testConfig()), t)
  })
  afterAll(async () => {
    await t.drop()
  })

  async function reset(): Promise<void> {
    for (const table of [
      'plan_outcomes',
      'stock_daily',
      'tier_scores',
      'daily_bars',
      'index_bars',
      'securities',
    ] as const)
      await t.db.deleteFrom(table).execute()
    await insertSecurities(t.db, CODES, {
      listDate: '2020-01-01',
      board: (code) => (code.startsWith('300') ? 'chinext' : 'main'),
    })
  }

  async function bars(list: readonly Bar[], indexCloses: ReadonlyMap<number, number>): Promise<void> {
    if (list.length)
      await t.db
        .insertInto('daily_bars')
        .values(
          list.map((b) => ({
            code: b.code,
            trade_date: DAYS[b.day]!,
            open: b.open,
            high: Math.max(b.open, b.close),
            low: Math.min(b.open, b.close),
            close: b.close,
            pre_close: b.pre,
            volume: 1000,
            amount: 1e6,
            turnover_rate: 1,
            adj_factor: b.adj ?? 1,
            is_suspended: b.suspended ?? false,
            is_st: false,
          })),
        )
        .execute()
    await t.db
      .insertInto('index_bars')
      .values(
        [...indexCloses].map(([day, close]) => ({
          code: '000300.SH',
          trade_date: DAYS[day]!,
          open: close * 0.999,
          high: close,
          low: close * 0.998,
          close,
          pre_close: null,
          volume: 1,
          amount: 1,
          turnover_rate: null,
          adj_factor: 1,
          is_suspended: false,
          is_st: false,
        })),
      )
      .execute()
  }

  /** Publishes plan date `day`: a tier table and daily rows for every code, scores given. */
  async function publish(day: number, scores: readonly number[]): Promise<void> {
    const date = DAYS[day]!
    await t.db
      .insertInto('tier_scores')
      .values(
        CODES.map((code, i) => ({
          trade_date: date,
          code,
          score: scores[i]!,
          rank: i + 1,
          tier: scores[i]! >= 70 ? ('main' as const) : ('reject' as const),
          graph_evidence: '[]',
          build_id: `b-${date}`,
          upside: scores[i]! / 100,
        })),
      )
      .execute()
    await t.db
      .insertInto('stock_daily')
      .values(
        CODES.map((code, i) => ({
          code,
          trade_date: date,
          verdict: scores[i]! >= 70 ? ('main' as const) : ('reject' as const),
          card_rank: null,
          plan_version: '1',
          logic_state: 'forming' as const,
          score: scores[i]!,
          score_ema: scores[i]!,
          state_since: date,
          state_rule: 'x',
          days_in_state: 1,
          above_days: 0,
          absent_days: 0,
          code_version: 'test',
        })),
      )
      .execute()
  }

  const outcomes = async () =>
    (
      await t.db
        .selectFrom('plan_outcomes')
        .select([
          'trade_date',
          'horizon',
          'code',
          'entry_date',
          'exit_date',
          'tradable',
          'reason',
          'ret',
          'bench_ret',
          'universe_ret',
          'excess',
        ])
        .orderBy('horizon')
        .orderBy('trade_date')
        .orderBy('code')
        .execute()
    ).map((r) => ({ ...r }))

  it('keeps a limit-up open and a suspended entry with their reasons, out of every return figure', async () => {
    await reset()
    await publish(0, [90, 85, 80, 75, 50, 40])
    const list: Bar[] = []
    for (const code of CODES) list.push({ code, day: 0, open: 10, close: 10, pre: 10 })
    list.push(
      { code: '600001.SH', day: 1, open: 10.2, close: 10.5, pre: 10 },
      { code: '600002.SH', day: 1, open: 11, close: 11, pre: 10 }, // opened at the 10% limit: not bought
      { code: '600003.SH', day: 1, open: 10, close: 10, pre: 10, suspended: true },
      { code: '300001.SZ', day: 1, open: 11, close: 11.5, pre: 10 }, // 10% up on ChiNext is below its 20% limit
      { code: '600004.SH', day: 1, open: 10, close: 9.8, pre: 10 },
      // 600005.SH has no bar on T+1 at all
    )
    await bars(
      list,
      new Map([
        [0, 4000],
        [1, 4040],
      ]),
    )
    const result = await services.steps.outcomes({ date: DAYS[1] }, signal)
    expect(result.summary).toContain('h1 6')
    const rows = await outcomes()
    const by = new Map(rows.map((r) => [r.code, r]))
    expect(by.get('600002.SH')).toMatchObject({ tradable: false, reason: 'limit_up_open', ret: null })
    expect(by.get('600003.SH')).toMatchObject({ tradable: false, reason: 'suspended', ret: null })
    expect(by.get('600005.SH')).toMatchObject({ tradable: false, reason: 'suspended', ret: null })
    expect(by.get('300001.SZ')!.ret).toBeCloseTo(11.5 / 11 - 1, 12)
    expect(by.get('600001.SH')!.ret).toBeCloseTo(10.5 / 10.2 - 1, 12)
    const bench = 4040 / (4040 * 0.999) - 1
    expect(by.get('600001.SH')!.excess).toBeCloseTo(10.5 / 10.2 - 1 - bench, 12)
    const universe = (10.5 / 10.2 - 1 + (11.5 / 11 - 1) + (9.8 / 10 - 1)) / 3
    expect(by.get('600004.SH')!.universe_ret).toBeCloseTo(universe, 12)

    // the evaluator leaves them out of every return figure and counts them apart
    const record = await services.trackRecord.evaluate({ horizon: 1, benchmark: '000300.SH' })
    expect(record.untradable).toEqual({ limit_up_open: 1, suspended: 2 })
    expect(record.portfolio.days[0]!.names).toBe(2) // main: 600001, 300001 (600002 and 600003 untradable)
    expect(record.portfolio.days[0]!.ret).toBeCloseTo((10.5 / 10.2 - 1 + (11.5 / 11 - 1)) / 2, 12)

    // a rerun writes nothing and changes nothing
    const again = await services.steps.outcomes({ date: DAYS[1] }, signal)
    expect(again.summary).toContain(': 0 rows')
    expect(await outcomes()).toEqual(rows)
  })

  it('property: outcomes and IC of T do not change when bars after T+h are appended', async () => {
    const price = fc.double({ min: 5, max: 50, noNaN: true })
    const move = fc.double({ min: -0.09, max: 0.09, noNaN: true })
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(move, { minLength: DAYS.length, maxLength: DAYS.length }), {
          minLength: CODES.length,
          maxLength: CODES.length,
        }),
        fc.array(price, { minLength: CODES.length, maxLength: CODES.length }),
        fc.array(fc.integer({ min: 0, max: 100 }), { minLength: CODES.length * 4, maxLength: CODES.length * 4 }),
        fc.integer({ min: 6, max: DAYS.length - 2 }),
        async (moves, starts, scores, cut) => {
          await reset()
          const all: Bar[] = []
          CODES.forEach((code, i) => {
            let pre = starts[i]!
            for (let d = 0; d < DAYS.length; d++) {
              const close = Math.round(pre * (1 + moves[i]![d]!) * 100) / 100
              const open = Math.round(((pre + close) / 2) * 100) / 100
              all.push({ code, day: d, open, close, pre, adj: d > 7 ? 1.1 : 1 })
              pre = close
            }
          })
          const index = new Map(DAYS.map((_, d) => [d, 4000 * (1 + 0.01 * Math.sin(d + moves[0]![d]!))]))
          for (let day = 0; day < 4; day++)
            await publish(day, scores.slice(day * CODES.length, (day + 1) * CODES.length))
          await bars(
            all.filter((b) => b.day <= cut),
            new Map([...index].filter(([d]) => d <= cut)),
          )
          await services.steps.outcomes({ date: DAYS[cut] }, signal)
          const before = await outcomes()
          // nothing was computed from a window that had not closed by the cut
          for (const r of before) expect(r.exit_date <= DAYS[cut]!).toBe(true)
          expect(before.some((r) => r.horizon === 5)).toBe(true)
          const icBefore = await services.trackRecord.evaluate({ horizon: 5, benchmark: '000300.SH' })

          await bars(
            all.filter((b) => b.day > cut),
            new Map([...index].filter(([d]) => d > cut)),
          )
          await services.steps.outcomes({ date: DAYS.at(-1) }, signal)
          const after = await outcomes()
          const known = new Set(before.map((r) => `${r.horizon}|${r.trade_date}`))
          expect(after.filter((r) => known.has(`${r.horizon}|${r.trade_date}`))).toEqual(before)
          expect(after.length).toBeGreaterThanOrEqual(before.length)
          const icAfter = await services.trackRecord.evaluate({
            horizon: 5,
            benchmark: '000300.SH',
            to: icBefore.to ?? undefined,
          })
          expect(icAfter.ic.daily).toEqual(icBefore.ic.daily)
          expect(icAfter.portfolio.days).toEqual(icBefore.portfolio.days)
        },
      ),
      { numRuns: 12 },
    )
  })
})
