import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { renderTearSheet } from '../../src/cli/tear-sheet.js'
import { type BookBar, DEFAULT_BOOK_COSTS, DEFAULT_BOOK_DEPTH, simulateBook } from '../../src/domain/book.js'
import {
  bookAttribution,
  costSensitivity,
  type DayFactors,
  RESEARCH_ATTEMPTS,
} from '../../src/domain/book-attribution.js'
import { assembleBookReport, HEADLINE_BOOK_SIZE } from '../../src/domain/book-report.js'
import { type UniverseName, universeDay } from '../../src/domain/book-universe.js'
import type { Board } from '../../src/domain/codes.js'
import { limitRatio } from '../../src/domain/limit-rules.js'
import { DEFAULT_BENCHMARK, limitDownPrice, limitUpPrice } from '../../src/domain/outcomes.js'
import { SCREEN_RULES } from '../../src/domain/screening.js'
import { isEligible } from '../../src/domain/tiers.js'
import { buildApp } from '../../src/http/app.js'
import { importDirectory } from '../../src/jobs/import/import-job.js'
import { silentProgress } from '../../src/jobs/progress.js'
import { createLogger } from '../../src/logger.js'
import { createImportStore } from '../../src/storage/import.repository.js'
import { createDemoDatabase, type DemoMarket, WEEKS_OF_PLANS } from '../support/demo-market.js'
import type { TestDatabase } from '../support/test-db.js'

interface PlainBar {
  code: string
  d: string
  open: number
  close: number
  adj: number
  pre_close: number | null
  is_st: boolean
  is_suspended: boolean
  amount: number
  board: string | null
  list_date: string | null
}

/**
 * The book's inputs read with plain queries and computed here row by row: `main` from the tier rows, every bar of
 * the store, the universe of each plan day from its tier rows, CSI 300's closes. The universe on D is `universeDay`
 * over the names eligible on T, each with its gap from T's close to D's open, its day from D's open to D's close,
 * whether it opened at its limit up on D, and its return over its last 20 traded bars to T (those of the 61
 * trading days before T the service reads).
 */
async function plainInputs(t: TestDatabase) {
  const calendar = (
    await sql<{ d: string }>`select distinct trade_date::text as d from daily_bars order by 1`.execute(t.db)
  ).rows.map((r) => r.d)
  const planDates = (
    await sql<{ d: string }>`select distinct trade_date::text as d from stock_daily order by 1`.execute(t.db)
  ).rows.map((r) => r.d)
  const mains = await sql<{ d: string; code: string }>`
    select trade_date::text as d, code from tier_scores where tier = 'main' order by trade_date, rank, code`.execute(
    t.db,
  )
  const mainOf = new Map<string, string[]>()
  for (const r of mains.rows) mainOf.set(r.d, [...(mainOf.get(r.d) ?? []), r.code])
  const bars = await sql<PlainBar>`
    select b.code, b.trade_date::text as d, b.open, b.close, b.adj_factor as adj, b.pre_close, b.is_st,
      b.is_suspended, b.amount, s.board, s.list_date::text as list_date
    from daily_bars b left join securities s using (code) order by b.code, b.trade_date`.execute(t.db)
  const barOf = new Map<string, BookBar>()
  const pxOf = new Map<string, number>()
  const traded = new Map<string, PlainBar[]>()
  for (const b of bars.rows) {
    if (b.is_suspended) continue
    traded.set(b.code, [...(traded.get(b.code) ?? []), b])
    pxOf.set(`${b.code} ${b.d}`, b.close * b.adj)
  }
  for (const list of traded.values())
    list.forEach((b, i) => {
      const before = list.slice(Math.max(0, i - 20), i)
      const rets = list
        .slice(Math.max(1, i - 20), i)
        .map(
          (x, k) =>
            (x.close * x.adj) / (list[Math.max(1, i - 20) + k - 1]!.close * list[Math.max(1, i - 20) + k - 1]!.adj) - 1,
        )
      const mean = rets.reduce((a, r) => a + r, 0) / rets.length
      const listed =
        b.list_date === null || b.list_date < calendar[0]!
          ? Infinity
          : calendar.filter((d) => d >= b.list_date! && d <= b.d).length
      const ratio = b.pre_close === null || b.board === null ? null : limitRatio(b.board as Board, b.is_st, b.d, listed)
      barOf.set(`${b.code} ${b.d}`, {
        open: b.open,
        close: b.close,
        adj: b.adj,
        limitUp: ratio === null ? null : limitUpPrice(b.pre_close!, ratio),
        limitDown: ratio === null ? null : limitDownPrice(b.pre_close!, ratio),
        amount20d: before.length ? before.reduce((a, x) => a + x.amount, 0) / before.length : null,
        vol20d: rets.length >= 2 ? Math.sqrt(rets.reduce((a, r) => a + (r - mean) ** 2, 0) / (rets.length - 1)) : null,
      })
    })
  const tiers = await sql<{
    d: string
    code: string
    is_suspended: boolean
    is_st: boolean
    amount_ma20: number
    listed_days: number
    invalidated: boolean
  }>`
    select trade_date::text as d, code, is_suspended, is_st, amount_ma20, listed_days, invalidated
    from tier_scores`.execute(t.db)
  const investable = new Map<string, Array<{ code: string; amount_ma20: number }>>()
  for (const r of tiers.rows) if (isEligible(r)) investable.set(r.d, [...(investable.get(r.d) ?? []), r])
  const ret20Of = (code: string, date: string): number | null => {
    const list = traded.get(code) ?? []
    const i = list.findIndex((b) => b.d === date)
    if (i < 20 || calendar.indexOf(date) - calendar.indexOf(list[i - 20]!.d) > 61) return null
    return (list[i]!.close * list[i]!.adj) / (list[i - 20]!.close * list[i - 20]!.adj) - 1
  }
  const universe = new Map<string, number | null>()
  const factors = new Map<string, DayFactors>()
  const names = new Map<string, UniverseName[]>()
  for (const planDate of planDates) {
    const next = calendar[calendar.indexOf(planDate) + 1]
    if (next === undefined) continue
    const day = (investable.get(planDate) ?? []).map(({ code, amount_ma20 }): UniverseName => {
      const a = pxOf.get(`${code} ${planDate}`)
      const d = barOf.get(`${code} ${next}`)
      return {
        code,
        amountMa20: amount_ma20,
        ret20: ret20Of(code, planDate),
        overnight: d === undefined || a === undefined ? null : (d.open * d.adj) / a - 1,
        intraday: d === undefined ? null : d.close / d.open - 1,
        openAtLimitUp: d !== undefined && d.limitUp !== null && d.open >= d.limitUp - 1e-9,
      }
    })
    names.set(next, day)
    const u = universeDay(day, (mainOf.get(planDate) ?? []).slice(0, DEFAULT_BOOK_DEPTH))
    universe.set(next, u.ret)
    factors.set(next, { size: u.sizeFactor, reversal: u.reversalFactor, matched: u.matchedRet })
  }
  const index = await sql<{ d: string; close: number }>`
    select trade_date::text as d, close from index_bars where code = ${DEFAULT_BENCHMARK}`.execute(t.db)
  const closes = new Map(index.rows.map((r) => [r.d, r.close]))
  const lastPlan = planDates.at(-1)!
  const span = calendar.slice(calendar.indexOf(planDates[0]!), calendar.indexOf(lastPlan) + 2)
  return {
    plan: planDates.map((date) => ({ date, main: (mainOf.get(date) ?? []).slice(0, DEFAULT_BOOK_DEPTH) })),
    universe,
    factors,
    names,
    market: {
      calendar: span,
      bar: (code: string, date: string) => barOf.get(`${code} ${date}`) ?? null,
      universeReturn: (date: string) => universe.get(date) ?? null,
      benchmarkReturn: (date: string) => {
        const before = closes.get(calendar[calendar.indexOf(date) - 1]!)
        const close = closes.get(date)
        return before === undefined || close === undefined ? null : close / before - 1
      },
    },
  }
}

/** The book report `simulateBook` gives over the plainly read inputs, at the service's defaults. */
function bookOfPlainInputs(plain: Awaited<ReturnType<typeof plainInputs>>) {
  return assembleBookReport({
    plan: plain.plan,
    market: plain.market,
    facts: [],
    factors: plain.factors,
    depth: DEFAULT_BOOK_DEPTH,
    costs: DEFAULT_BOOK_COSTS,
    benchmark: DEFAULT_BENCHMARK,
  })
}

describe('the main book from the store (issue 38)', () => {
  let t: TestDatabase
  let demo: DemoMarket
  beforeAll(async () => {
    ;[t, demo] = await createDemoDatabase(WEEKS_OF_PLANS)
  }, 180_000)
  afterAll(async () => {
    await demo.cleanup()
    await t.drop()
  })

  it('the outcomes step stored each plan day facts, and the book is simulateBook over inputs read plainly', async () => {
    const stored = await sql<{ d: string }>`select trade_date::text as d from plan_day_book order by 1`.execute(t.db)
    const plain = await plainInputs(t)
    // every plan day but one without a next trading day has its universe return and exposures stored
    const withNext = plain.plan.filter((p) => plain.market.calendar.indexOf(p.date) < plain.market.calendar.length - 1)
    expect(stored.rows.map((r) => r.d)).toEqual(withNext.map((p) => p.date))
    expect(plain.plan.filter((p) => p.main.length > 0).length).toBeGreaterThan(10)

    const report = await demo.services.trackRecord.evaluate({ horizon: 5, benchmark: DEFAULT_BENCHMARK })
    const expected = bookOfPlainInputs(plain)
    const { exposures, ...book } = report.book
    const { exposures: _none, ...want } = expected
    expect(book.days.length).toBe(withNext.length)
    expect(book.days.filter((d) => d.universe !== null).length).toBe(withNext.length)
    expect(book.days.map((d) => [d.date, d.universe])).toEqual(
      want.days.map((d) => [d.date, expect.closeTo(plain.universe.get(d.date)!, 12)]),
    )
    expect(closeTree(book, want)).toBe(true)
    // attribution and sensitivity are the pure functions' at the headline size over the plain inputs
    const headline = simulateBook(plain.plan, plain.market, {
      depth: DEFAULT_BOOK_DEPTH,
      bookSize: HEADLINE_BOOK_SIZE,
      costs: DEFAULT_BOOK_COSTS,
    })
    expect(closeTree(book.attribution, bookAttribution(headline, plain.factors, RESEARCH_ATTEMPTS))).toBe(true)
    const options = { depth: DEFAULT_BOOK_DEPTH, bookSize: HEADLINE_BOOK_SIZE, costs: DEFAULT_BOOK_COSTS }
    expect(closeTree(book.cost_sensitivity, costSensitivity(plain.plan, plain.market, options))).toBe(true)
    expect(book.attribution.gross?.loadings.map((l) => l.name)).toEqual(['size', 'reversal'])
    expect(book.attribution.deflated_sharpe?.attempts).toBe(RESEARCH_ATTEMPTS)
    expect(book.attribution.matched.net.mean).not.toBeNull()
    // the sensitivity row at the headline costs is the headline
    const atHeadline = book.cost_sensitivity.find(
      (c) => c.impact === DEFAULT_BOOK_COSTS.impact && c.adv_cap === DEFAULT_BOOK_COSTS.advCap,
    )!
    const sized = book.sizes.find((x) => x.size === HEADLINE_BOOK_SIZE)!
    expect(atHeadline.net_excess).toEqual(sized.universe.net_excess)
    expect(atHeadline.cost_drag).toBe(sized.cost_drag)
    expect(book.cost_sensitivity).toHaveLength(6)
    expect(exposures.days).toBeGreaterThan(10)
    expect(exposures.mean_z.size).not.toBeNull()
    const universeShare = exposures.industries.reduce((a, i) => a + i.universe, 0)
    expect(universeShare).toBeCloseTo(1, 9)
  })

  it('a plan day without stored facts is computed from its rows, to the same figures', async () => {
    const before = await demo.services.trackRecord.evaluate({ horizon: 5, benchmark: DEFAULT_BENCHMARK })
    await sql`delete from plan_day_book`.execute(t.db)
    const after = await demo.services.trackRecord.evaluate({ horizon: 5, benchmark: DEFAULT_BENCHMARK })
    expect(closeTree(after.book, before.book)).toBe(true)
    // the outcomes step stores them again
    await demo.services.steps.outcomes({}, new AbortController().signal)
    const stored = await sql<{ n: number }>`select count(*)::int as n from plan_day_book`.execute(t.db)
    expect(stored.rows[0]!.n).toBe(before.book.days.length)
  })

  it('a date range holds only its plan days', async () => {
    const all = await demo.services.trackRecord.evaluate({ horizon: 5, benchmark: DEFAULT_BENCHMARK })
    const from = all.book.days[3]!.plan_date
    const to = all.book.days[12]!.plan_date
    const part = await demo.services.trackRecord.evaluate({ horizon: 5, benchmark: DEFAULT_BENCHMARK, from, to })
    expect(part.book.days.map((d) => d.plan_date)).toEqual(all.book.days.slice(3, 13).map((d) => d.plan_date))
    // the book starts in cash on the range's first plan day: its first day buys all it holds (one-sided: half)
    expect(part.book.days[0]!.turnover).toBeCloseTo((1 - part.book.days[0]!.cash) / 2, 1)
    expect(part.book.days[0]!.turnover).toBeGreaterThan(all.book.days[3]!.turnover)
  })

  it('a leaver suspended past the first read of its bars is read again to the end, to the same book', async () => {
    const before = await plainInputs(t)
    const calendar = before.market.calendar
    // a name in main on two plan days that leaves on P+1 for good, with 14 trading days after its sale day:
    // suspend it for 12 of them, past the 10 days after P its bars are first read through
    const leavesFor = (i: number) =>
      before.plan[i]!.main.filter(
        (c) => before.plan[i - 1]?.main.includes(c) && !before.plan.slice(i + 1).some((p) => p.main.includes(c)),
      )
    const leaver = before.plan.findIndex(
      (p, i) =>
        i + 1 < before.plan.length && calendar.indexOf(p.date) + 16 < calendar.length && leavesFor(i).length > 0,
    )
    expect(leaver).toBeGreaterThanOrEqual(0)
    const day = before.plan[leaver]!
    const code = leavesFor(leaver)[0]!
    const sale = calendar.indexOf(day.date) + 2
    await sql`update daily_bars set is_suspended = true
      where code = ${code} and trade_date between ${calendar[sale]!}::date and ${calendar[sale + 11]!}::date`.execute(
      t.db,
    )
    // the universe returns those days change too: the stored facts are computed again from the rows
    await sql`delete from plan_day_book`.execute(t.db)
    const plain = await plainInputs(t)
    const report = await demo.services.trackRecord.evaluate({ horizon: 5, benchmark: DEFAULT_BENCHMARK })
    const { exposures: _e, ...book } = report.book
    const { exposures: _none, ...want } = bookOfPlainInputs(plain)
    expect(closeTree(book, want)).toBe(true)
    // the book carried it through the suspension (unless it re-entered main meanwhile)
    expect(book.sizes[0]!.days_carrying).toBeGreaterThan(0)
  })

  it('facts stored before a late or corrected bar of the next day are dropped and computed again (issue 49)', async () => {
    const signal = new AbortController().signal
    const stored = async () =>
      (
        await sql<{ d: string; next: string }>`
          select trade_date::text as d, next_date::text as next from plan_day_book order by 1`.execute(t.db)
      ).rows
    const universeOn = async (next: string) =>
      (await demo.services.trackRecord.evaluate({ horizon: 5, benchmark: DEFAULT_BENCHMARK })).book.days.find(
        (d) => d.date === next,
      )!.universe
    // a bar arrives through the import, as a sync or `stockplan import` brings it
    const dir = await mkdtemp(path.join(os.tmpdir(), 'stockplan-late-bar-'))
    const importBar = async (bar: Record<string, unknown>) => {
      const columns = Object.keys(bar)
      await writeFile(
        path.join(dir, 'bars.csv'),
        `${columns.join(',')}\n${columns.map((c) => bar[c] ?? '').join(',')}\n`,
      )
      await importDirectory(
        { imports: createImportStore(t.pool), log: createLogger({ logLevel: 'silent' }), progress: silentProgress },
        { dir, format: 'native' },
        signal,
      )
    }
    try {
      await demo.services.steps.outcomes({}, signal)
      const days = await stored()
      const day = days[Math.floor(days.length / 2)]!
      const [{ code }] = (
        await sql<{ code: string }>`
          select s.code from tier_scores s
          join daily_bars b on b.code = s.code and b.trade_date = ${day.next}::date and not b.is_suspended
          where s.trade_date = ${day.d}::date and not s.is_suspended and not s.is_st
            and s.amount_ma20 >= ${SCREEN_RULES.minAmountMa20}
          order by s.code limit 1`.execute(t.db)
      ).rows as [{ code: string }]
      const [bar] = (
        await sql<Record<string, unknown>>`
          select code, trade_date::text, open, high, low, close, pre_close, volume, amount, turnover_rate, adj_factor,
            is_suspended, is_st
          from daily_bars where code = ${code} and trade_date = ${day.next}::date`.execute(t.db)
      ).rows as [Record<string, unknown>]
      // the night the facts were stored, the code's bar of the next day was not there yet
      await sql`delete from daily_bars where code = ${code} and trade_date = ${day.next}::date`.execute(t.db)
      await sql`delete from plan_day_book`.execute(t.db)
      await demo.services.steps.outcomes({}, signal)
      const without = await universeOn(day.next)

      await importBar(bar)
      const late = await universeOn(day.next)
      expect(late).toBeCloseTo((await plainInputs(t)).universe.get(day.next)!, 12)
      expect(Math.abs(late! - without!)).toBeGreaterThan(1e-9)
      // the plan day whose next day got the bar, and every later one, were dropped; the ones before are kept
      expect((await stored()).map((d) => d.d)).toEqual(days.filter((d) => d.next < day.next).map((d) => d.d))

      // a corrected close of that bar
      await demo.services.steps.outcomes({}, signal)
      await importBar({ ...bar, close: Number(bar.close) * 1.1 })
      expect((await stored()).map((d) => d.d)).not.toContain(day.d)
      const corrected = await universeOn(day.next)
      expect(corrected).toBeCloseTo((await plainInputs(t)).universe.get(day.next)!, 12)
      expect(Math.abs(corrected! - late!)).toBeGreaterThan(1e-9)

      // back as it was, the facts of every day stored again
      await importBar(bar)
      await demo.services.steps.outcomes({}, signal)
      expect(await stored()).toEqual(days)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('GET /plan/track_record carries the book in its schema; evaluate prints it first', async () => {
    const app = await buildApp(demo.services)
    const report = await demo.services.trackRecord.evaluate({ horizon: 5, benchmark: DEFAULT_BENCHMARK })
    try {
      const res = await app.inject({ method: 'GET', url: '/plan/track_record?horizon=5' })
      expect(res.statusCode).toBe(200)
      const body = res.json()
      expect(Object.keys(body.book).sort()).toEqual(
        [
          'attribution',
          'benchmark',
          'cost_sensitivity',
          'costs',
          'days',
          'depth',
          'exposures',
          'from',
          'headline_size',
          'sizes',
          'to',
          'universe',
        ].sort(),
      )
      expect(body.book.attribution).toEqual(report.book.attribution)
      expect(body.book.cost_sensitivity).toEqual(report.book.cost_sensitivity)
      expect(body.book.sizes.map((s: { size: number }) => s.size)).toEqual([20e6, 100e6, 300e6])
      expect(Object.keys(body.book.sizes[0].universe)).toContain('net_ir')
      expect(body.book.exposures.note).toContain('not point in time')
      // the existing fields are still there
      expect(body.portfolio.ir === null || typeof body.portfolio.ir === 'number').toBe(true)
      const text = renderTearSheet(report)
      expect(text.startsWith('Main book')).toBe(true)
      expect(text).toContain('Edge net of size and reversal at 100 M')
      expect(text).toContain(`the best of ${RESEARCH_ATTEMPTS} attempts`)
      expect(text).toMatch(/^0\.75\s+5%\s/m)
      expect(text).toContain('Signal research')
    } finally {
      await app.close()
    }
  })
})

/** Two JSON trees equal, numbers to a relative 1e-12 (the store's sums and the plain ones differ in their last bits). */
function closeTree(a: unknown, b: unknown, at = '$'): boolean {
  if (typeof a === 'number' && typeof b === 'number') {
    if (Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(b))) return true
    throw new Error(`${at}: ${a} != ${b}`)
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) throw new Error(`${at}: length ${a.length} != ${b.length}`)
    return a.every((x, i) => closeTree(x, b[i], `${at}[${i}]`))
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a).sort()
    const kb = Object.keys(b).sort()
    if (ka.join() !== kb.join()) throw new Error(`${at}: keys ${ka} != ${kb}`)
    return ka.every((k) =>
      closeTree((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${at}.${k}`),
    )
  }
  if (a !== b) throw new Error(`${at}: ${String(a)} != ${String(b)}`)
  return true
}
