/**
 * `GET /plan/verdict` and `stockplan reconcile`: per-code verdicts against the plan of a tier date at default
 * sizes. Reads, per request, one query each of tier_scores, securities, builds and holdings, plus the day's
 * `_full` from the plan service (the snapshot, or live assembly: exactly what `GET /plan` cuts from).
 */
import { distinctCodes, parseCodeItems } from '../domain/code-list.js'
import { DEFAULT_SIZES, selectRows } from '../domain/plan-assembly.js'
import type { FullPlan } from '../domain/plan-types.js'
import { type VerdictEntry, verdictFor } from '../domain/verdict.js'
import { AppError, exceptionText, notFound } from '../errors.js'
import type { Logger } from '../logger.js'
import type { MarketDataRepository } from '../storage/market-data.repository.js'
import type { PlanInputRepository } from '../storage/plan-input.repository.js'
import type { TierRepository } from '../storage/tier.repository.js'
import type { LatestDate } from './latest-date.js'
import { checkCodeList, failureText, lookupDate } from './lookup-request.js'
import type { PlanService } from './plan.service.js'

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

const noTierRows = (date: string): AppError =>
  notFound(`no tier scores for ${date}: run the day's build first (\`stockplan build --date ${date}\`)`)

export function createVerdictService(deps: VerdictServiceDeps) {
  async function load(date: string, codes: readonly string[]) {
    const [rows, securities, build, held, full] = await Promise.allSettled([
      deps.inputs.tierRows(date, codes),
      codes.length > 0 ? deps.market.securities(codes) : Promise.resolve([]),
      deps.tiers.latestBuild(date),
      deps.inputs.heldCodes(),
      deps.plans.getFull(date),
    ])
    // the store's own failure text first: the plan service words a store failure as its own 503
    for (const result of [rows, securities, build, held]) {
      if (result.status === 'rejected') throw new AppError(500, failureText(result.reason))
    }
    if (full.status === 'rejected') {
      const err: unknown = full.reason
      if (err instanceof AppError && err.statusCode === 404) throw noTierRows(date)
      throw new AppError(500, failureText(err))
    }
    const ok = <T>(r: PromiseSettledResult<T>): T => (r as PromiseFulfilledResult<T>).value
    return {
      rows: ok(rows),
      securities: ok(securities),
      build: ok(build),
      held: ok(held),
      full: full.value as FullPlan,
    }
  }

  return {
    async lookup(request: VerdictRequest): Promise<VerdictList> {
      checkCodeList(request.codes)
      const items = parseCodeItems(request.codes)
      const date = await lookupDate(deps.latestDate, request.date)
      const codes = distinctCodes(items)
      const data = await load(date, codes)
      const context = {
        date,
        rows: new Map(data.rows.map((r) => [r.code, r])),
        names: new Map(data.securities.map((s) => [s.code, s.name])),
        held: data.held,
        selection: selectRows(data.full, DEFAULT_SIZES),
      }
      const verdicts = items.map((item): VerdictItem => {
        if ('error' in item) return item
        try {
          return verdictFor(item.input, item.code, context)
        } catch (err) {
          deps.log.warn({ date, code: item.code, err: { message: failureText(err) } }, 'verdict failed for one code')
          return { input: item.input, code: item.code, error: exceptionText(err) }
        }
      })
      return { date, stale: data.build?.stale ?? '', count: verdicts.length, verdicts }
    },
  }
}

export type VerdictService = ReturnType<typeof createVerdictService>
