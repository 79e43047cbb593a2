/**
 * `GET /plan/verdict` and `stockplan reconcile`: per-code verdicts against the plan of a tier date at default
 * sizes. Reads, once per date, the date's tier_scores, its build record and the day's `_full` from the plan
 * service (the snapshot, or live assembly: exactly what `GET /plan` cuts from); per request, the requested codes'
 * names and the holdings.
 */
import { distinctCodes, parseCodeItems } from '../domain/code-list.js'
import { DEFAULT_SIZES, selectRows } from '../domain/plan-assembly.js'
import type { FullPlan, TierRow } from '../domain/plan-types.js'
import { type VerdictContext, type VerdictEntry, verdictFor } from '../domain/verdict.js'
import { DomainError, errorText, isDomainError } from '../errors.js'
import type { Logger } from '../logger.js'
import type { MarketDataRepository } from '../storage/market-data.repository.js'
import type { PlanInputRepository } from '../storage/plan-input.repository.js'
import type { TierRepository } from '../storage/tier.repository.js'
import { JsonBytes, members, utf8 } from './json-bytes.js'
import type { LatestDate } from './latest-date.js'
import { checkCodeList, lookupDate } from './lookup-request.js'
import type { PlanService } from './plan.service.js'
import { mapInSlices } from './slices.js'

export interface VerdictError {
  readonly input: string
  readonly error: string
}

export interface VerdictDataError {
  readonly input: string
  readonly code: string
  readonly error: string
}

export type VerdictItem = VerdictEntry | VerdictError | VerdictDataError

export interface VerdictList {
  readonly date: string
  readonly stale: string
  readonly count: number
  readonly verdicts: VerdictItem[]
}

export interface VerdictServiceDeps {
  readonly inputs: Pick<PlanInputRepository, 'tierRows' | 'heldCodes'>
  readonly market: Pick<MarketDataRepository, 'securities'>
  readonly tiers: Pick<TierRepository, 'latestBuild'>
  readonly latestDate: Pick<LatestDate, 'get'>
  readonly plans: Pick<PlanService, 'getFull'>
  readonly log: Logger
}

export interface VerdictRequest {
  /** The inputs as given (already split and trimmed); duplicates are answered once each. */
  readonly codes: readonly string[]
  readonly date?: string
}

const noTierRows = (date: string): DomainError =>
  new DomainError(
    'PlanNotFound',
    `no tier scores for ${date}: run the day's build first (\`stockplan build --date ${date}\`)`,
  )

const lookupFailed = (err: unknown): DomainError => new DomainError('LookupFailed', errorText(err), { cause: err })

/** What a date's verdicts are decided from, apart from names and holdings: written once by its build and plan. */
interface DayData {
  readonly rows: ReadonlyMap<string, TierRow>
  readonly stale: string
  readonly selection: ReturnType<typeof selectRows>
  /** Per tier code and holding state, its entry's JSON from `decision` on (or its failure): computed once. */
  readonly kept: { readonly free: Map<string, KeptVerdict>; readonly held: Map<string, KeptVerdict> }
}

/**
 * A tier code's verdict apart from `input`, `code` and `name` (they vary by request) as UTF-8 JSON, from the
 * comma before `decision` to the closing brace; or why it failed.
 */
type KeptVerdict = { readonly rest: Buffer } | { readonly error: string; readonly err: unknown }

/** Dates whose data is kept. */
const KEPT_DATES = 3

export function createVerdictService(deps: VerdictServiceDeps) {
  // the date's whole tier table and plan selection, read once per date rather than per request: a 1000-code
  // request then costs two small queries (names, holdings) and the per-code decisions
  const days = new Map<string, Promise<DayData>>()

  async function loadDay(date: string): Promise<DayData> {
    const [rows, build, full] = await Promise.allSettled([
      deps.inputs.tierRows(date),
      deps.tiers.latestBuild(date),
      deps.plans.getFull(date),
    ])
    // the store's own failure text first: the plan service words a store failure as its own 503
    for (const result of [rows, build]) {
      if (result.status === 'rejected') throw lookupFailed(result.reason)
    }
    if (full.status === 'rejected') {
      const err: unknown = full.reason
      if (isDomainError(err, 'PlanNotFound')) throw noTierRows(date)
      throw lookupFailed(err)
    }
    const ok = <T>(r: PromiseSettledResult<T>): T => (r as PromiseFulfilledResult<T>).value
    return {
      rows: new Map(ok(rows).map((r) => [r.code, r])),
      stale: ok(build)?.stale ?? '',
      selection: selectRows(full.value as FullPlan, DEFAULT_SIZES),
      kept: { free: new Map(), held: new Map() },
    }
  }

  function dayData(date: string): Promise<DayData> {
    let day = days.get(date)
    if (!day) {
      const loading = loadDay(date)
      day = loading
      days.set(date, loading)
      loading.catch(() => {
        if (days.get(date) === loading) days.delete(date) // a failure is answered, never kept
      })
      while (days.size > KEPT_DATES) days.delete(days.keys().next().value as string)
    }
    return day
  }

  /**
   * Holdings as of the date (they change at any time) and the names of codes whose tier row has none (a
   * security can be listed after the build): per request.
   */
  async function perRequest(codes: readonly string[], date: string, day: DayData) {
    const unnamed = codes.filter((code) => !day.rows.get(code)?.name)
    try {
      const [securities, held] = await Promise.all([
        unnamed.length > 0 ? deps.market.securities(unnamed) : Promise.resolve([]),
        deps.inputs.heldCodes(date),
      ])
      return { names: new Map(securities.map((s) => [s.code, s.name])), held }
    } catch (err) {
      throw lookupFailed(err)
    }
  }

  async function resolve(request: VerdictRequest) {
    checkCodeList(request.codes)
    const items = parseCodeItems(request.codes)
    const date = await lookupDate(deps.latestDate, request.date)
    // the date's data first: its failure text (tier data) is the one a 500 carries
    const day = await dayData(date)
    const { names, held } = await perRequest(distinctCodes(items), date, day)
    return { items, date, day, context: { date, rows: day.rows, names, held, selection: day.selection } }
  }

  function failed(date: string, item: { input: string; code: string }, err: unknown): VerdictDataError {
    deps.log.warn({ date, code: item.code, err: { message: errorText(err) } }, 'verdict failed for one code')
    return { input: item.input, code: item.code, error: errorText(err, { withType: true }) }
  }

  /** A tier code's kept verdict for its holding state, computed the first time it is asked for. */
  function keptVerdict(day: DayData, context: VerdictContext, code: string): KeptVerdict {
    const kept = context.held.has(code) ? day.kept.held : day.kept.free
    let verdict = kept.get(code)
    if (!verdict) {
      try {
        const { input: _input, code: _code, name: _name, ...rest } = verdictFor(code, code, context)
        verdict = { rest: utf8(`,${members(rest)}}`) }
      } catch (err) {
        verdict = { error: errorText(err, { withType: true }), err }
      }
      kept.set(code, verdict)
    }
    return verdict
  }

  return {
    async lookup(request: VerdictRequest): Promise<VerdictList> {
      const { items, date, day, context } = await resolve(request)
      const verdicts = await mapInSlices(items, (item): VerdictItem => {
        if ('error' in item) return item
        try {
          return verdictFor(item.input, item.code, context)
        } catch (err) {
          return failed(date, item, err)
        }
      })
      return { date, stale: day.stale, count: verdicts.length, verdicts }
    },

    /**
     * The UTF-8 bytes of `JSON.stringify(await lookup(request))`, spliced: a tier code's entry apart from input,
     * code and name is kept per date and holding state, so a request costs map lookups, not a verdict per code.
     */
    async lookupBody(request: VerdictRequest): Promise<Buffer> {
      const { items, date, day, context } = await resolve(request)
      const body = new JsonBytes().text(
        `{"date":${JSON.stringify(date)},"stale":${JSON.stringify(day.stale)},"count":${items.length},"verdicts":[`,
      )
      const whole = (i: number, entry: VerdictItem): void => {
        body.text(`${i > 0 ? ',' : ''}${JSON.stringify(entry)}`)
      }
      await mapInSlices(items, (item, i) => {
        if ('error' in item) return whole(i, item)
        const row = day.rows.get(item.code)
        if (!row) {
          try {
            return whole(i, verdictFor(item.input, item.code, context))
          } catch (err) {
            return whole(i, failed(date, item, err))
          }
        }
        const verdict = keptVerdict(day, context, item.code)
        if ('error' in verdict) {
          failed(date, item, verdict.err)
          return whole(i, { input: item.input, code: item.code, error: verdict.error })
        }
        const name = row.name || context.names.get(item.code) || null
        body
          .text(
            `${i > 0 ? ',' : ''}{"input":${JSON.stringify(item.input)},"code":${JSON.stringify(item.code)},"name":${JSON.stringify(name)}`,
          )
          .bytes(verdict.rest)
      })
      return body.text(']}').toBuffer()
    },

    /** The date was re-planned: its selection is stale. */
    forgetDate: (date: string): void => {
      days.delete(date)
    },
    /** Tier rows changed somewhere (a build): every kept date may be stale. */
    clear: (): void => days.clear(),
  }
}

export type VerdictService = ReturnType<typeof createVerdictService>
