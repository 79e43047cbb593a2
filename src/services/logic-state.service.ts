/**
 * `GET /logic_state`: per code, the stored daily row of the date (`source: daily`) or the state computed at
 * request time (`source: computed`), with valuation and company review attached. One query per table per
 * request: stock_daily, tier_scores (computed codes only), daily_bars, daily_basics, eps_forecasts, financials.
 */
import { mergeByCode } from '../domain/code-list.js'
import { type CompanyReview, formatCompanyReview } from '../domain/company-review.js'
import {
  computedNote,
  type LogicStateFields,
  type Replayed,
  replayFrom,
  type StoredMemory,
  stateFields,
  type TierDay,
} from '../domain/logic-replay.js'
import { type FactsInput, stockFacts } from '../domain/stock-facts.js'
import { formatValuation, type Valuation } from '../domain/valuation.js'
import { AppError } from '../errors.js'
import type { Logger } from '../logger.js'
import type { LookupRepository, PeFacts } from '../storage/lookup.repository.js'
import type { FinancialRow, ForecastRow, MarketDataRepository } from '../storage/market-data.repository.js'
import { toLogicMemory } from '../storage/plan-input.repository.js'
import type { StockDailyRow } from '../storage/schema.js'
import type { LatestDate } from './latest-date.js'
import { checkCodeList, failureText, lookupDate } from './lookup-request.js'

export interface LogicStateEntry extends LogicStateFields {
  readonly input: string
  readonly code: string
  readonly date: string
  readonly source: 'daily' | 'computed'
  readonly verdict: StockDailyRow['verdict'] | null
  readonly card_rank: number | null
  readonly plan_version: string | null
  readonly code_version: string | null
  readonly note: string | null
  readonly valuation?: Valuation | null
  readonly valuation_text?: string | null
  readonly company_review?: CompanyReview | null
  readonly company_review_text?: string | null
}

export interface LogicStateError {
  readonly input: string
  readonly error: string
}

export interface LogicStateList {
  readonly date: string
  readonly count: number
  readonly states: Array<LogicStateEntry | LogicStateError>
}

/** How valuation and company review are computed from a code's facts; replaceable to test a failing group. */
export interface FactsFunctions {
  readonly valuation: (input: FactsInput) => Valuation | null
  readonly review: (input: FactsInput) => CompanyReview | null
}

/** The build's own `stockFacts`, so the valuation shown is the one behind the tier table's `upside`. */
export const STOCK_FACTS: FactsFunctions = Object.freeze({
  valuation: (input: FactsInput) => stockFacts(input).valuation,
  review: (input: FactsInput) => stockFacts(input).review,
})

export interface LogicStateServiceDeps {
  readonly lookups: LookupRepository
  readonly market: Pick<MarketDataRepository, 'financials' | 'forecasts'>
  readonly latestDate: Pick<LatestDate, 'get'>
  readonly log: Logger
  readonly facts?: Partial<FactsFunctions>
}

export interface LogicStateRequest {
  readonly codes: readonly string[]
  readonly date?: string
}

type StateOf = Pick<LogicStateEntry, 'source' | 'verdict' | 'card_rank' | 'plan_version' | 'code_version' | 'note'> &
  LogicStateFields

interface FactsData {
  readonly closes: PromiseSettledResult<Map<string, number>>
  readonly pe: PromiseSettledResult<Map<string, PeFacts>>
  readonly forecasts: PromiseSettledResult<Map<string, ForecastRow>>
  readonly financials: PromiseSettledResult<Map<string, FinancialRow[]>>
}

type Group<T> = { ok: true; values: Map<string, T> } | { ok: false }

export function createLogicStateService(deps: LogicStateServiceDeps) {
  const facts: FactsFunctions = { ...STOCK_FACTS, ...deps.facts }

  /** Daily rows where stored for the date, the rest stepped or replayed from tier scores. */
  async function states(date: string, codes: readonly string[]): Promise<Map<string, StateOf>> {
    const stored = new Map((await deps.lookups.latestStoredStates(date, codes)).map((r) => [r.code, r]))
    const out = new Map<string, StateOf>()
    const computed: string[] = []
    for (const code of codes) {
      const row = stored.get(code)
      if (row?.trade_date === date) {
        out.set(code, {
          source: 'daily',
          verdict: row.verdict,
          card_rank: row.card_rank,
          plan_version: row.plan_version,
          code_version: row.code_version,
          ...stateFields(toLogicMemory(row)),
          note: null,
        })
      } else computed.push(code)
    }
    if (computed.length === 0) return out
    const seeds = new Map<string, StoredMemory>()
    for (const code of computed) {
      const row = stored.get(code)
      if (row) seeds.set(code, { date: row.trade_date, memory: toLogicMemory(row) })
    }
    // the window starts after the oldest seed, or at the beginning when any code has none
    const since =
      seeds.size < computed.length ? null : [...seeds.values()].reduce((min, s) => (s.date < min ? s.date : min), date)
    const tier = await deps.lookups.tierDays(computed, since, date)
    const byCode = new Map<string, Map<string, TierDay>>()
    for (const row of tier.rows) {
      const days = byCode.get(row.code) ?? new Map<string, TierDay>()
      days.set(row.trade_date, row)
      byCode.set(row.code, days)
    }
    for (const code of computed) {
      const seed = seeds.get(code)
      const replayed: Replayed = replayFrom(seed, tier.dates, byCode.get(code) ?? new Map())
      out.set(code, {
        source: 'computed',
        verdict: null,
        card_rank: null,
        plan_version: null,
        code_version: null,
        ...stateFields(replayed.memory),
        note: computedNote(code, date, seed, replayed),
      })
    }
    return out
  }

  function loadFacts(date: string, codes: readonly string[]): Promise<FactsData> {
    return Promise.allSettled([
      deps.lookups.closesOn(date, codes),
      deps.lookups.peFacts(date, codes),
      deps.market.forecasts(date, codes),
      deps.market.financials(date, codes),
    ]).then(([closes, pe, forecasts, financials]) => ({ closes, pe, forecasts, financials }))
  }

  /** One group for every code, or none at all: the first failure (reading or computing) drops the group. */
  function group<T>(
    name: 'valuation' | 'company_review',
    date: string,
    codes: readonly string[],
    reads: ReadonlyArray<PromiseSettledResult<unknown>>,
    compute: (code: string) => T,
  ): Group<T> {
    const failedRead = reads.find((r): r is PromiseRejectedResult => r.status === 'rejected')
    if (failedRead) {
      deps.log.warn(
        { date, group: name, err: { message: failureText(failedRead.reason) } },
        `${name} left out: reading its data failed`,
      )
      return { ok: false }
    }
    const values = new Map<string, T>()
    for (const code of codes) {
      try {
        values.set(code, compute(code))
      } catch (err) {
        deps.log.warn(
          { date, group: name, code, err: { message: failureText(err) } },
          `${name} left out: computing it failed`,
        )
        return { ok: false }
      }
    }
    return { ok: true, values }
  }

  function factsInput(data: FactsData, code: string): FactsInput {
    const value = <T>(r: PromiseSettledResult<Map<string, T>>): T | undefined =>
      r.status === 'fulfilled' ? r.value.get(code) : undefined
    const pe = value(data.pe)
    return {
      price: value(data.closes) ?? null,
      peToday: pe?.peToday ?? null,
      pe: pe?.pe ?? null,
      forecast: value(data.forecasts) ?? null,
      financials: value(data.financials) ?? [],
    }
  }

  return {
    async lookup(request: LogicStateRequest): Promise<LogicStateList> {
      checkCodeList(request.codes)
      const { valid, invalid } = mergeByCode(request.codes)
      const date = await lookupDate(deps.latestDate, request.date)
      if (valid.length === 0) return { date, count: invalid.length, states: [...invalid] }
      const codes = valid.map((v) => v.code)
      const factsRead = loadFacts(date, codes)
      let stateByCode: Map<string, StateOf>
      try {
        stateByCode = await states(date, codes)
      } catch (err) {
        await factsRead
        throw new AppError(500, failureText(err))
      }
      const data = await factsRead
      const valuation = group(
        'valuation',
        date,
        codes,
        [data.closes, data.pe, data.forecasts, data.financials],
        (code) => facts.valuation(factsInput(data, code)),
      )
      const review = group('company_review', date, codes, [data.financials], (code) =>
        facts.review(factsInput(data, code)),
      )
      const entries = valid.map(({ input, code }): LogicStateEntry => {
        const v = valuation.ok ? (valuation.values.get(code) ?? null) : undefined
        const r = review.ok ? (review.values.get(code) ?? null) : undefined
        return {
          input,
          code,
          date,
          ...stateByCode.get(code)!,
          ...(v !== undefined ? { valuation: v, valuation_text: formatValuation(v) } : {}),
          ...(r !== undefined ? { company_review: r, company_review_text: formatCompanyReview(r) } : {}),
        }
      })
      return { date, count: entries.length + invalid.length, states: [...entries, ...invalid] }
    },
  }
}

export type LogicStateService = ReturnType<typeof createLogicStateService>
