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
import { DomainError, errorText } from '../errors.js'
import type { Logger } from '../logger.js'
import type { LookupRepository, PeFacts } from '../storage/lookup.repository.js'
import type { FinancialRow, ForecastRow, MarketDataRepository } from '../storage/market-data.repository.js'
import { toLogicMemory } from '../storage/plan-input.repository.js'
import type { StockDailyRow } from '../storage/schema.js'
import { DayCache } from './cache/day-cache.js'
import { JsonBytes, members, utf8 } from './json-bytes.js'
import type { LatestDate } from './latest-date.js'
import { checkCodeList, lookupDate } from './lookup-request.js'
import { mapInSlices } from './slices.js'

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

/** A code's entry of a date, apart from the input it was asked as; a group is undefined when it failed. */
interface CodeEntry {
  readonly state: StateOf
  readonly valuation: { valuation: Valuation | null; valuation_text: string | null } | undefined
  readonly review: { company_review: CompanyReview | null; company_review_text: string | null } | undefined
  /**
   * The same as UTF-8 JSON members (no braces): `code`, `date` and the state; then the valuation pair and the
   * review pair, each with its leading comma.
   */
  readonly json: { readonly state: Buffer; readonly valuation: Buffer; readonly review: Buffer }
}

const CLOSE = utf8('}')
const END = utf8(']}')

/** Dates whose entries are kept, and codes kept per date (more than a market has: unknown codes are kept too). */
const KEPT_DATES = 3
const KEPT_CODES_PER_DATE = 12_000

export function createLogicStateService(deps: LogicStateServiceDeps) {
  const batchDeps: BatchDeps = { ...deps, facts: { ...STOCK_FACTS, ...deps.facts } }
  const kept = new DayCache<CodeEntry>({ maxDates: KEPT_DATES, maxCodes: KEPT_CODES_PER_DATE })

  /** Each code's entry of the date: kept ones as they are, the others computed in one batch and kept. */
  function entriesOf(date: string, codes: readonly string[]): Promise<CodeEntry[]> {
    const missing = codes.filter((code) => kept.get(date, code) === undefined)
    const pending = new Map<string, Promise<CodeEntry>>()
    if (missing.length > 0) {
      const batch = computeBatch(batchDeps, date, missing)
      for (const code of missing) {
        const entry = batch.then((m) => m.get(code)!)
        entry.catch(() => undefined) // the request awaits it below; the cache drops it
        pending.set(code, entry)
        kept.set(date, code, entry)
        // a batch with a group left out is answered once, not kept: the next request tries again
        entry.then(
          (e) => (!e.valuation || !e.review ? kept.delete(date, code, entry) : undefined),
          () => undefined,
        )
      }
    }
    return Promise.all(codes.map((code) => pending.get(code) ?? kept.get(date, code)!))
  }

  /** The date and each valid code's entry; which groups every entry shows. */
  async function resolve(request: LogicStateRequest) {
    checkCodeList(request.codes)
    const { valid, invalid } = mergeByCode(request.codes)
    const date = await lookupDate(deps.latestDate, request.date)
    let found: CodeEntry[] = []
    try {
      if (valid.length > 0)
        found = await entriesOf(
          date,
          valid.map((v) => v.code),
        )
    } catch (err) {
      throw err instanceof DomainError ? err : new DomainError('LookupFailed', errorText(err), { cause: err })
    }
    // a group is shown for every entry or for none (some entries may come from a batch that left it out)
    const withValuation = found.every((e) => e.valuation !== undefined)
    const withReview = found.every((e) => e.review !== undefined)
    return { date, valid, invalid, found, withValuation, withReview }
  }

  return {
    async lookup(request: LogicStateRequest): Promise<LogicStateList> {
      const { date, valid, invalid, found, withValuation, withReview } = await resolve(request)
      const entries = await mapInSlices(valid, ({ input, code }, i): LogicStateEntry => {
        const e = found[i]!
        return {
          input,
          code,
          date,
          ...e.state,
          ...(withValuation ? e.valuation : {}),
          ...(withReview ? e.review : {}),
        }
      })
      return { date, count: entries.length + invalid.length, states: [...entries, ...invalid] }
    },

    /** The UTF-8 bytes of `JSON.stringify(await lookup(request))`, spliced from the entries' kept JSON. */
    async lookupBody(request: LogicStateRequest): Promise<Buffer> {
      const { date, valid, invalid, found, withValuation, withReview } = await resolve(request)
      const body = new JsonBytes().text(
        `{"date":${JSON.stringify(date)},"count":${valid.length + invalid.length},"states":[`,
      )
      await mapInSlices(valid, ({ input }, i) => {
        const json = found[i]!.json
        body.text(`${i > 0 ? ',' : ''}{"input":${JSON.stringify(input)},`).bytes(json.state)
        if (withValuation) body.bytes(json.valuation)
        if (withReview) body.bytes(json.review)
        body.bytes(CLOSE)
      })
      for (const [i, item] of invalid.entries()) body.text(`${valid.length + i > 0 ? ',' : ''}${JSON.stringify(item)}`)
      return body.bytes(END).toBuffer()
    },

    /** The date was re-planned (its stored states changed): its kept entries are stale. */
    forgetDate: (date: string): void => kept.forget(date),
    /** Tier rows changed somewhere (a build): every kept entry may be stale. */
    clear: (): void => kept.clear(),
  }
}

export type LogicStateService = ReturnType<typeof createLogicStateService>

type BatchDeps = Pick<LogicStateServiceDeps, 'lookups' | 'market' | 'log'> & { readonly facts: FactsFunctions }

/** Daily rows where stored for the date, the rest stepped or replayed from tier scores. */
async function states(
  lookups: LookupRepository,
  date: string,
  codes: readonly string[],
): Promise<Map<string, StateOf>> {
  const stored = new Map((await lookups.latestStoredStates(date, codes)).map((r) => [r.code, r]))
  const out = new Map<string, StateOf>()
  const computed: string[] = []
  await mapInSlices(codes, (code) => {
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
  })
  if (computed.length === 0) return out
  const seeds = new Map<string, StoredMemory>()
  for (const code of computed) {
    const row = stored.get(code)
    if (row) seeds.set(code, { date: row.trade_date, memory: toLogicMemory(row) })
  }
  // the window starts after the oldest seed, or at the beginning when any code has none
  const since =
    seeds.size < computed.length ? null : [...seeds.values()].reduce((min, s) => (s.date < min ? s.date : min), date)
  const tier = await lookups.tierDays(computed, since, date)
  const byCode = new Map<string, Map<string, TierDay>>()
  for (const row of tier.rows) {
    const days = byCode.get(row.code) ?? new Map<string, TierDay>()
    days.set(row.trade_date, row)
    byCode.set(row.code, days)
  }
  await mapInSlices(computed, (code) => {
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
  })
  return out
}

/** One query after another: run at once, their rows arrive together and are parsed in one event-loop turn. */
async function loadFacts(
  deps: Pick<LogicStateServiceDeps, 'lookups' | 'market'>,
  date: string,
  codes: readonly string[],
): Promise<FactsData> {
  const settle = <T>(read: () => Promise<T>): Promise<PromiseSettledResult<T>> =>
    read().then(
      (value) => ({ status: 'fulfilled', value }),
      (reason: unknown) => ({ status: 'rejected', reason }),
    )
  const pe = await settle(() => deps.lookups.peFacts(date, codes))
  const closes = await settle(() => deps.lookups.closesOn(date, codes))
  const forecasts = await settle(() => deps.market.forecasts(date, codes))
  const financials = await settle(() => deps.market.financials(date, codes))
  return { closes, pe, forecasts, financials }
}

/** One group for every code, or none at all: the first failure (reading or computing) drops the group. */
async function group<T>(
  log: Logger,
  name: 'valuation' | 'company_review',
  date: string,
  codes: readonly string[],
  reads: ReadonlyArray<PromiseSettledResult<unknown>>,
  compute: (code: string) => T,
): Promise<Group<T>> {
  const failedRead = reads.find((r): r is PromiseRejectedResult => r.status === 'rejected')
  if (failedRead) {
    log.warn(
      { date, group: name, err: { message: errorText(failedRead.reason) } },
      `${name} left out: reading its data failed`,
    )
    return { ok: false }
  }
  const values = new Map<string, T>()
  let failed = false
  await mapInSlices(codes, (code) => {
    if (failed) return
    try {
      values.set(code, compute(code))
    } catch (err) {
      failed = true
      log.warn({ date, group: name, code, err: { message: errorText(err) } }, `${name} left out: computing it failed`)
    }
  })
  return failed ? { ok: false } : { ok: true, values }
}

function factsInput(data: FactsData, code: string, date: string): FactsInput {
  const value = <T>(r: PromiseSettledResult<Map<string, T>>): T | undefined =>
    r.status === 'fulfilled' ? r.value.get(code) : undefined
  const pe = value(data.pe)
  return {
    date,
    price: value(data.closes) ?? null,
    peToday: pe?.peToday ?? null,
    pe: pe?.pe ?? null,
    forecast: value(data.forecasts) ?? null,
    financials: value(data.financials) ?? [],
  }
}

/**
 * The entries of codes not yet known for the date, computed together (one query per table for the batch).
 * A failed group leaves its keys out of this batch's entries (`undefined`), and such a batch is not kept.
 */
async function computeBatch(deps: BatchDeps, date: string, codes: readonly string[]): Promise<Map<string, CodeEntry>> {
  const { facts } = deps
  const factsRead = loadFacts(deps, date, codes)
  let stateByCode: Map<string, StateOf>
  try {
    stateByCode = await states(deps.lookups, date, codes)
  } catch (err) {
    await factsRead
    throw new DomainError('LookupFailed', errorText(err), { cause: err })
  }
  const data = await factsRead
  const valuation = await group(
    deps.log,
    'valuation',
    date,
    codes,
    [data.closes, data.pe, data.forecasts, data.financials],
    (code) => facts.valuation(factsInput(data, code, date)),
  )
  const review = await group(deps.log, 'company_review', date, codes, [data.financials], (code) =>
    facts.review(factsInput(data, code, date)),
  )
  const out = new Map<string, CodeEntry>()
  await mapInSlices(codes, (code) => {
    const v = valuation.ok ? (valuation.values.get(code) ?? null) : undefined
    const r = review.ok ? (review.values.get(code) ?? null) : undefined
    out.set(code, codeEntry(code, date, stateByCode.get(code)!, v, r))
  })
  return out
}

/** A code's entry with its JSON, the groups undefined when they failed. */
function codeEntry(
  code: string,
  date: string,
  state: StateOf,
  v: Valuation | null | undefined,
  r: CompanyReview | null | undefined,
): CodeEntry {
  const valuationPair = v === undefined ? undefined : { valuation: v, valuation_text: formatValuation(v) }
  const reviewPair = r === undefined ? undefined : { company_review: r, company_review_text: formatCompanyReview(r) }
  return {
    state,
    valuation: valuationPair,
    review: reviewPair,
    // serialised once with the entry: a response is then spliced together, not stringified per request
    json: {
      state: utf8(members({ code, date, ...state })),
      valuation: utf8(`,${members(valuationPair)}`),
      review: utf8(`,${members(reviewPair)}`),
    },
  }
}
