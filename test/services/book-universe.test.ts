import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTrackRecordWiring, type TrackRecordWiring } from '../../src/compose/track-record.js'
import { legReturn, type UniverseName, universeDay } from '../../src/domain/book-universe.js'
import { DEFAULT_BENCHMARK } from '../../src/domain/outcomes.js'
import { createMarketDataRepository } from '../../src/storage/market-data.repository.js'
import { up as dropOldFacts } from '../../src/storage/migrations/0022-book-universe.js'
import { insertSecurities } from '../support/securities.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'

/** 23 weekdays from 2024-03-01: days 0..21 of history, plan day T = day 21, the book's day D = day 22. */
const DAYS = Array.from({ length: 40 }, (_, i) => new Date(Date.UTC(2024, 2, 1 + i)))
  .filter((d) => d.getUTCDay() % 6 !== 0)
  .map((d) => d.toISOString().slice(0, 10))
  .slice(0, 23)
const T = 21
const D = 22

/**
 * Five main-board names (±10%). On T: A, B and C eligible; N listed only 30 trading days, I trading 40 M a day (both
 * not investable); `main` = A, B. On D: A opens at its limit up (10 × 1.1), B goes ex-dividend (adj 1 → 1.1).
 */
const NAMES = {
  A: { code: '600001.SH', amount: 3e8, listed: 500, t1: 8, close: 10, d: { open: 11, close: 11, adj: 1 } },
  B: { code: '600002.SH', amount: 2e8, listed: 500, t1: 25, close: 20, d: { open: 20.4, close: 20.8, adj: 1.1 } },
  C: { code: '600003.SH', amount: 1e8, listed: 500, t1: 5, close: 5, d: { open: 4.9, close: 5.1, adj: 1 } },
  N: { code: '600004.SH', amount: 2e8, listed: 30, t1: 5, close: 5, d: { open: 6, close: 6, adj: 1 } },
  I: { code: '600005.SH', amount: 4e7, listed: 500, t1: 5, close: 5, d: { open: 3, close: 3, adj: 1 } },
} as const

/** The legs by hand: overnight from T's adjusted close to D's adjusted open, intraday from D's open to its close. */
const A_ON = 11 / 10 - 1
const B_ON = (20.4 * 1.1) / 20 - 1
const C_ON = 4.9 / 5 - 1
const B_DAY = 20.8 / 20.4 - 1
const C_DAY = 5.1 / 4.9 - 1
/** A's gap counts (held overnight), its day does not (not bought at its limit up open). */
const UNIVERSE = (1 + (A_ON + B_ON + C_ON) / 3) * (1 + (B_DAY + C_DAY) / 2) - 1

async function seed(t: TestDatabase): Promise<void> {
  const all = Object.values(NAMES)
  await insertSecurities(
    t.db,
    all.map((n) => n.code),
  )
  await t.db
    .insertInto('daily_bars')
    .values(
      all.flatMap((n) =>
        DAYS.map((date, k) => {
          // the close is flat at `close` but on day 1 (`t1`): the 20 traded days to T's close run from day 1
          const close = k === D ? n.d.close : k === 1 ? n.t1 : n.close
          const open = k === D ? n.d.open : close
          const pre = k === 0 ? null : k === 2 ? n.t1 : n.close
          return {
            code: n.code,
            trade_date: date,
            open,
            high: Math.max(open, close),
            low: Math.min(open, close),
            close,
            pre_close: pre,
            volume: 1000,
            amount: n.amount,
            turnover_rate: 1,
            adj_factor: k === D ? n.d.adj : 1,
            is_suspended: false,
            is_st: false,
          }
        }),
      ),
    )
    .execute()
  await t.db
    .insertInto('index_bars')
    .values(
      DAYS.map((date, k) => ({
        code: DEFAULT_BENCHMARK,
        trade_date: date,
        open: 3000,
        high: 3000,
        low: 3000,
        close: 3000 + k,
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
  const date = DAYS[T]!
  const main = new Set<string>([NAMES.A.code, NAMES.B.code])
  await t.db
    .insertInto('tier_scores')
    .values(
      all.map((n, i) => ({
        trade_date: date,
        code: n.code,
        score: 90 - i,
        rank: i + 1,
        tier: main.has(n.code) ? ('main' as const) : ('observe' as const),
        graph_evidence: '[]',
        build_id: `b-${date}`,
        upside: 0.1,
        amount_ma20: n.amount,
        listed_days: n.listed,
      })),
    )
    .execute()
  await t.db
    .insertInto('stock_daily')
    .values(
      all.map((n, i) => ({
        code: n.code,
        trade_date: date,
        verdict: main.has(n.code) ? ('main' as const) : ('observe' as const),
        card_rank: null,
        plan_version: '1',
        logic_state: 'forming' as const,
        score: 90 - i,
        score_ema: 90 - i,
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

describe("the book's universe on a hand-made market (issue 47)", () => {
  let t: TestDatabase
  let wiring: TrackRecordWiring
  const report = () => wiring.service.evaluate({ horizon: 1, benchmark: DEFAULT_BENCHMARK })
  beforeAll(async () => {
    t = await createTestDatabase()
    await seed(t)
    wiring = createTrackRecordWiring(t.db, createMarketDataRepository(t.db))
  }, 60_000)
  afterAll(async () => {
    await t.drop()
  })

  it('the universe and the book on the same day: a name opening at its limit up is bought by neither', async () => {
    const facts = await wiring.bookDays.facts([DAYS[T]!])
    const day = facts.get(DAYS[T]!)!
    expect(day.next).toBe(DAYS[D])
    // A, B and C: N is too new, I too illiquid
    expect(day.facts.universeNames).toBe(3)
    expect(day.facts.universeRet).toBeCloseTo(UNIVERSE, 14)
    // A with only its gap; size: the bottom third by traded value (C) less the top (A); reversal: the losers
    // over 20 days (B, from 25 to 20) less the winners (A, from 8 to 10); matched: A's and B's deciles are themselves
    const leg = (overnight: number, intraday: number, limitUp = false): UniverseName => ({
      code: 'x',
      amountMa20: 1,
      ret20: null,
      overnight,
      intraday,
      openAtLimitUp: limitUp,
    })
    const a = legReturn([leg(A_ON, 0, true)])!
    const b = legReturn([leg(B_ON, B_DAY)])!
    const c = legReturn([leg(C_ON, C_DAY)])!
    expect(a).toBeCloseTo(A_ON, 15)
    expect(b).toBeCloseTo((1 + B_ON) * (1 + B_DAY) - 1, 15)
    expect(day.facts.sizeFactor).toBeCloseTo(c - a, 14)
    expect(day.facts.reversalFactor).toBeCloseTo(b - a, 14)
    expect(day.facts.matchedRet).toBeCloseTo((a + b) / 2, 14)

    const book = (await report()).book
    expect(book.days.map((d) => d.date)).toEqual([DAYS[D]])
    const [only] = book.days
    expect(only!.universe).toBeCloseTo(UNIVERSE, 14)
    // the book targets A and B: it buys B, not A
    expect(only!.holdings).toBe(1)
    expect(book.universe.rule).toContain('not opening at the limit up')
    // the universe as universeDay builds it from the same legs
    const names: UniverseName[] = [
      { code: NAMES.A.code, amountMa20: 3e8, ret20: 10 / 8 - 1, overnight: A_ON, intraday: 0, openAtLimitUp: true },
      {
        code: NAMES.B.code,
        amountMa20: 2e8,
        ret20: 20 / 25 - 1,
        overnight: B_ON,
        intraday: B_DAY,
        openAtLimitUp: false,
      },
      { code: NAMES.C.code, amountMa20: 1e8, ret20: 0, overnight: C_ON, intraday: C_DAY, openAtLimitUp: false },
    ]
    const want = universeDay(names, [NAMES.A.code, NAMES.B.code])
    expect(day.facts.universeRet).toBeCloseTo(want.ret!, 14)
    expect(day.facts.matchedRet).toBeCloseTo(want.matchedRet!, 14)
  })

  it('facts stored under the old definition are served until migration 0022 drops them', async () => {
    const shown: string[] = []
    const progress = {
      start: (label: string, total: number, unit: string) => shown.push(`start ${label} ${total} ${unit}`),
      tick: (count: number) => shown.push(`tick ${count}`),
      done: (message: string) => shown.push(`done ${message}`),
    }
    expect(await wiring.bookDays.writeMissing(new AbortController().signal, progress)).toBe(1)
    // a replay shows this minute of work on the terminal; with nothing left to write it shows nothing
    expect(shown).toEqual(['start book facts 1 days', 'tick 1', 'done book facts stored for 1 day'])
    expect(await wiring.bookDays.writeMissing(new AbortController().signal, progress)).toBe(0)
    expect(shown).toHaveLength(3)
    const stored = await sql<{ n: number }>`select count(*)::int as n from plan_day_book`.execute(t.db)
    expect(stored.rows[0]!.n).toBe(1)
    // the old close-to-close figure over every traded name on T: a stored row is read as it is
    await sql`update plan_day_book set facts = jsonb_set(facts::jsonb, '{universeRet}', '0.5')::json`.execute(t.db)
    expect((await report()).book.days[0]!.universe).toBe(0.5)
    await dropOldFacts(t.db)
    expect((await report()).book.days[0]!.universe).toBeCloseTo(UNIVERSE, 14)
  })
})
