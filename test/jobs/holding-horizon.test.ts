import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EDGE_RULES } from '../../src/domain/expected-edge.js'
import { createDemoDatabase, type DemoMarket, WEEKS_OF_PLANS } from '../support/demo-market.js'
import type { TestDatabase } from '../support/test-db.js'

/**
 * The chain's builds read each holding's streak from the published plans in the store (`publishedMains`): over 28 chain
 * days, every kept row's words name the streak the stored plans show, and nobody is switched out before the horizon.
 */
describe('holding streaks through the chain and the store (PLAN_VERSION 6)', () => {
  let t: TestDatabase
  let demo: DemoMarket
  beforeAll(async () => {
    ;[t, demo] = await createDemoDatabase(WEEKS_OF_PLANS)
  }, 180_000)
  afterAll(async () => {
    await demo?.cleanup()
    await t?.drop()
  })

  it("each kept name's held days are its days in a row in the published main before the date", async () => {
    const published = await t.db
      .selectFrom('stock_daily')
      .select(['code', 'trade_date'])
      .where('verdict', '=', 'main')
      .execute()
    const mainOn = new Map<string, Set<string>>()
    for (const r of published) {
      const date = String(r.trade_date)
      if (!mainOn.has(date)) mainOn.set(date, new Set())
      mainOn.get(date)!.add(r.code)
    }
    const dates = demo.planned
    const streakBefore = (code: string, i: number): number => {
      let days = 0
      for (let k = i - 1; k >= 0 && days < EDGE_RULES.horizon && mainOn.get(dates[k]!)?.has(code); k--) days++
      return days
    }
    const rules = await t.db
      .selectFrom('tier_scores')
      .select(['code', 'trade_date', 'tier_rule'])
      .where('trade_date', 'in', dates)
      .where((eb) =>
        eb.or([eb('tier_rule', 'like', 'kept from yesterday%'), eb('tier_rule', 'like', 'left main: replaced by%')]),
      )
      .execute()
    const seen = { young: 0, switchable: 0, switchedOut: 0 }
    for (const r of rules) {
      const i = dates.indexOf(String(r.trade_date))
      const streak = streakBefore(r.code, i)
      if (r.tier_rule.startsWith('left main: replaced by')) {
        seen.switchedOut++
        expect(streak, `${r.code} switched out on ${r.trade_date}`).toBe(EDGE_RULES.horizon)
        continue
      }
      const young = /held (\d+) of 20 days: not yet switchable$/.exec(r.tier_rule)
      if (young) {
        seen.young++
        expect(Number(young[1]), `${r.code} on ${r.trade_date}`).toBe(streak)
      } else {
        seen.switchable++
        expect(r.tier_rule, `${r.code} on ${r.trade_date}`).toMatch(
          /held 20 days or more: switchable(, but a weak day switches nothing)?$/,
        )
        expect(streak).toBe(EDGE_RULES.horizon)
      }
    }
    // the 28 days reach past the horizon: the rule's three cases all occur
    expect(seen.young).toBeGreaterThan(100)
    expect(seen.switchable).toBeGreaterThan(0)
    expect(seen.switchedOut).toBeGreaterThan(0)
  })
})
