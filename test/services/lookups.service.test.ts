import { describe, expect, it } from 'vitest'
import { buildFullPlan } from '../../src/domain/plan-assembly.js'
import { DomainError } from '../../src/errors.js'
import { createLogicStateService } from '../../src/services/logic-state.service.js'
import { lookupDate } from '../../src/services/lookup-request.js'
import { createVerdictService } from '../../src/services/verdict.service.js'
import type { LookupRepository } from '../../src/storage/lookup.repository.js'
import type { StockDailyRow } from '../../src/storage/schema.js'
import { captureLog } from '../support/log-capture.js'
import { tierRow } from '../support/tier-rows.js'

const DATE = '2026-11-20'

async function rejection(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError)
    return err as DomainError
  }
  throw new Error('expected a rejection')
}

describe('lookupDate', () => {
  it('the given date as is; the latest otherwise; TierTableEmpty when there is none, LookupFailed when it cannot be read', async () => {
    const never = { get: () => Promise.reject(new Error('not asked')) }
    expect(await lookupDate(never, DATE)).toBe(DATE)
    expect(await lookupDate({ get: async () => DATE }, undefined)).toBe(DATE)
    expect(await rejection(lookupDate({ get: async () => undefined }, undefined))).toMatchObject({
      code: 'TierTableEmpty',
    })
    expect(await rejection(lookupDate({ get: () => Promise.reject(new Error('down')) }, undefined))).toMatchObject({
      code: 'LookupFailed',
      message: 'down',
    })
  })
})

describe('verdict service failures', () => {
  const rows = [tierRow({ code: '600001.SH', rank: 1 })]
  const full = buildFullPlan({
    date: DATE,
    planVersion: '1',
    generatedAt: '',
    rows,
    held: new Set(),
    logic: new Map(),
    prevDate: null,
    prevMain: [],
  })
  const deps = (over: Partial<Parameters<typeof createVerdictService>[0]> = {}) =>
    createVerdictService({
      inputs: { tierRows: async () => rows, heldCodes: async () => new Set<string>() },
      market: { securities: async () => [] },
      tiers: { latestBuild: async () => undefined },
      latestDate: { get: async () => DATE },
      plans: { getFull: async () => full },
      log: captureLog().log,
      ...over,
    })

  it('stale is empty without a build record', async () => {
    expect(await deps().lookup({ codes: ['600001'] })).toMatchObject({ date: DATE, stale: '', count: 1 })
  })

  it("LookupFailed with the store's own text even when the plan service words the failure as StoreUnavailable", async () => {
    const service = deps({
      inputs: {
        tierRows: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432')),
        heldCodes: async () => new Set(),
      },
      plans: {
        getFull: () =>
          Promise.reject(new DomainError('StoreUnavailable', 'plan store unavailable and no usable snapshot')),
      },
    })
    expect(await rejection(service.lookup({ codes: ['600001'], date: DATE }))).toMatchObject({
      code: 'LookupFailed',
      message: 'connect ECONNREFUSED 127.0.0.1:5432',
    })
  })

  it('PlanNotFound telling to run the build when the plan service has no rows for the date; LookupFailed for any other plan failure', async () => {
    const none = deps({ plans: { getFull: () => Promise.reject(new DomainError('PlanNotFound', 'no plan')) } })
    const err = await rejection(none.lookup({ codes: ['600001'], date: DATE }))
    expect(err.code).toBe('PlanNotFound')
    expect(err.message).toMatch(/run the day's build first/)
    const broken = deps({ plans: { getFull: () => Promise.reject(new SyntaxError('bad snapshot')) } })
    expect(await rejection(broken.lookup({ codes: ['600001'], date: DATE }))).toMatchObject({
      code: 'LookupFailed',
      message: 'bad snapshot',
    })
  })
})

describe('logic state service failures', () => {
  const stored: StockDailyRow = {
    code: '600001.SH',
    trade_date: DATE,
    verdict: 'main',
    card_rank: 1,
    plan_version: '1',
    logic_state: 'confirmed',
    score: 80,
    score_ema: 78.123,
    score_pct: 91.5,
    pct_ema: 88.25,
    state_since: '2026-11-10',
    state_rule: 'enter',
    days_in_state: 9,
    above_days: 9,
    absent_days: 0,
    code_version: 'abc',
  }
  const lookups = (over: Partial<LookupRepository> = {}): LookupRepository => ({
    latestStoredStates: async () => [stored],
    tierDays: async () => ({ dates: [], rows: [] }),
    closesOn: async () => new Map([['600001.SH', 10]]),
    peFacts: async () => new Map(),
    ...over,
  })
  const service = (
    repo: LookupRepository,
    financials: () => Promise<never> | Promise<Map<string, never[]>> = async () => new Map(),
  ) => {
    const captured = captureLog()
    return {
      captured,
      service: createLogicStateService({
        lookups: repo,
        market: { financials, forecasts: async () => new Map() },
        latestDate: { get: async () => DATE },
        log: captured.log,
      }),
    }
  }

  it('a failed read of the valuation inputs leaves out the valuation keys only', async () => {
    const { service: s, captured } = service(lookups({ peFacts: () => Promise.reject(new Error('basics gone')) }))
    const list = await s.lookup({ codes: ['600001', 'bad'] })
    expect(Object.keys(list.states[0]!)).not.toContain('valuation')
    expect(Object.keys(list.states[0]!)).not.toContain('valuation_text')
    expect(list.states[0]).toMatchObject({
      source: 'daily',
      logic_state: 'confirmed',
      score_ema: 78.12,
      company_review: null,
    })
    expect(list.states[1]).toEqual({ input: 'bad', error: expect.any(String) })
    expect(captured.lines).toContainEqual(
      expect.objectContaining({
        level: 40,
        group: 'valuation',
        err: expect.objectContaining({ message: 'basics gone' }),
      }),
    )
  })

  it('a failed read of the financials leaves out both groups, the states still answered', async () => {
    const { service: s } = service(lookups(), () => Promise.reject(new Error('financials gone')))
    const list = await s.lookup({ codes: ['600001'] })
    expect(list.states[0]).toEqual({
      input: '600001',
      code: '600001.SH',
      date: DATE,
      source: 'daily',
      verdict: 'main',
      card_rank: 1,
      plan_version: '1',
      code_version: 'abc',
      logic_state: 'confirmed',
      score: 80,
      score_ema: 78.12,
      score_pct: 91.5,
      pct_ema: 88.25,
      state_since: '2026-11-10',
      days_in_state: 9,
      state_rule: 'enter',
      note: null,
    })
  })

  it('a failed group is not kept: the next request reads it again and shows it; the JSON is the lookup, spliced', async () => {
    let failPe = true
    let peReads = 0
    const repo = lookups({
      latestStoredStates: async (_date, codes) => codes.map((code) => ({ ...stored, code })),
      peFacts: async () => {
        peReads++
        if (failPe) throw new Error('basics gone')
        return new Map()
      },
    })
    const { service: s } = service(repo)
    const request = { codes: ['600001', 'bad', '600002.SH', 'SH600001'] }
    const failed = await s.lookup(request)
    expect((await s.lookupBody(request)).toString()).toBe(JSON.stringify(failed))
    expect(Object.keys(failed.states[0]!)).not.toContain('valuation')
    failPe = false
    const answered = await s.lookup(request)
    expect(answered.states[0]).toMatchObject({ valuation: null, valuation_text: null })
    const reads = peReads
    // now kept: the same and overlapping requests read nothing more and give the same JSON
    expect((await s.lookupBody(request)).toString()).toBe(JSON.stringify(answered))
    expect(JSON.parse((await s.lookupBody({ codes: ['600002'] })).toString())).toEqual(
      await s.lookup({ codes: ['600002'] }),
    )
    expect(peReads).toBe(reads)
    s.forgetDate(DATE)
    await s.lookup(request)
    expect(peReads).toBe(reads + 1)
  })

  it('LookupFailed with the failure text when the states cannot be read', async () => {
    const { service: s } = service(lookups({ latestStoredStates: () => Promise.reject(new Error('stock_daily gone')) }))
    expect(await rejection(s.lookup({ codes: ['600001'] }))).toMatchObject({
      code: 'LookupFailed',
      message: 'stock_daily gone',
    })
  })

  it('asks for the tier history only for the codes without a stored row of the date, from their oldest seed', async () => {
    const asked: Array<[readonly string[], string | null]> = []
    const seedRow = { ...stored, code: '600002.SH', trade_date: '2026-11-18' }
    const { service: s } = service(
      lookups({
        latestStoredStates: async () => [stored, seedRow],
        tierDays: async (codes, since) => {
          asked.push([codes, since])
          return { dates: ['2026-11-19', DATE], rows: [] }
        },
      }),
    )
    const list = await s.lookup({ codes: ['600001', '600002'] })
    expect(asked).toEqual([[['600002.SH'], '2026-11-18']])
    // confirmed at percentile EMA 88.25, then two absent days: a gap is not a reset, the percentile EMA holds
    // (the raw score EMA decays 78.1 -> 34.7) and the state stays, two days longer
    expect(list.states[1]).toMatchObject({
      source: 'computed',
      logic_state: 'confirmed',
      state_rule: 'enter',
      state_since: '2026-11-10',
      days_in_state: 11,
      score: null,
      score_ema: 34.72,
      pct_ema: 88.25,
    })
    expect(list.states[1]).not.toHaveProperty('absent_days')
    // no stored state for a code: replay from the beginning
    const { service: fresh } = service(
      lookups({
        latestStoredStates: async () => [seedRow],
        tierDays: async (codes, since) => {
          asked.push([codes, since])
          return { dates: [], rows: [] }
        },
      }),
    )
    await fresh.lookup({ codes: ['600002', '600003'] })
    expect(asked.at(-1)).toEqual([['600002.SH', '600003.SH'], null])
  })
})
