import { renderPlanMarkdown } from '../domain/markdown.js'
import { cutPlan, DEFAULT_SIZES } from '../domain/plan-assembly.js'
import type { FullPlan, PlanBody, PlanSizes } from '../domain/plan-types.js'
import { DomainError, errorText } from '../errors.js'
import type { Logger } from '../logger.js'
import { type PlanFiles, PlanWriteError } from '../storage/plan-files.js'
import { SingleFlight } from './cache/single-flight.js'
import type { LatestDate } from './latest-date.js'
import {
  PlanCache,
  type PlanCut,
  type PlanDay,
  type PlanSource,
  planCacheKey,
  type SnapshotState,
} from './plan-cache.js'
import type { PlanDays, PlanObserver } from './plan-days.js'

export { PLAN_CACHE_MAX, type PlanCut, type PlanSource, type SnapshotState } from './plan-cache.js'
export type { PlanObserver } from './plan-days.js'

export interface PlanServiceDeps {
  readonly days: PlanDays
  readonly files: Pick<PlanFiles, 'writePlan'>
  readonly latestDate: Pick<LatestDate, 'get' | 'peek'>
  readonly log: Logger
  readonly cacheSec: number
  /** Milliseconds, for the cache lifetime. */
  readonly now: () => number
  readonly observe?: PlanObserver
}

/** A served plan as data: the cached cut (the same object on every hit) and this request's snapshot state. */
export interface PlanResult {
  readonly plan: PlanCut
  readonly body: PlanBody
  readonly source: PlanSource
  /** The same object while the day's snapshot file is unchanged. */
  readonly snapshot: SnapshotState
  readonly cache: 'hit' | 'miss'
}

const result = (plan: PlanCut, snapshot: SnapshotState, cache: 'hit' | 'miss'): PlanResult => ({
  plan,
  body: plan.body,
  source: plan.day.source,
  snapshot,
  cache,
})

export function createPlanService(deps: PlanServiceDeps) {
  const cache = new PlanCache({ ttlMs: deps.cacheSec * 1000, now: deps.now })
  const cutFlights = new SingleFlight<PlanCut>()
  const dayFlights = new SingleFlight<PlanDay>()
  // the hit lane asks with the same sizes object request after request: its key is built and hashed once per date
  // (a key built per request was most of a hit's cache lookup, about 0.2 µs of 0.25 in a tight loop)
  const lastKeys = new WeakMap<PlanSizes, { readonly date: string; readonly key: string }>()
  function cachedKey(date: string, sizes: PlanSizes): string {
    const last = lastKeys.get(sizes)
    if (last !== undefined && last.date === date) return last.key
    const key = planCacheKey(date, sizes)
    lastKeys.set(sizes, { date, key })
    return key
  }

  async function resolveDate(date: string | undefined): Promise<string> {
    if (date !== undefined) return date
    try {
      return (await deps.latestDate.get()) ?? ''
    } catch (err) {
      deps.log.warn({ err: { message: errorText(err) } }, 'latest plan date lookup failed')
      return ''
    }
  }

  /** The day plans are cut from: the kept one, unless `fresh` (nocache, refresh), which reads and keeps anew. */
  function loadDay(date: string, fresh: boolean, log?: Pick<Logger, 'warn'>): Promise<PlanDay> {
    const kept = fresh ? undefined : cache.day(date)
    if (kept) return Promise.resolve(kept)
    return dayFlights.run(fresh ? `${date}|fresh` : date, async () => {
      const generation = cache.generation
      const day = await deps.days.read(date, log)
      cache.setDay(day, generation)
      return day
    })
  }

  async function cut(date: string, sizes: PlanSizes, fresh: boolean, log?: Pick<Logger, 'warn'>): Promise<PlanCut> {
    if (date === '')
      throw new DomainError(
        'PlanNotFound',
        "no plan: the tier table is empty or unreadable (run the day's build first)",
      )
    const day = await loadDay(date, fresh, log)
    deps.observe?.source(day.source)
    return { body: cutPlan(day.full, sizes), sizes, day }
  }

  return {
    /**
     * A cache hit answered without waiting (no promise, no I/O): the data date known, the cut cached and the
     * snapshot checked within the last second. Anything else is `undefined`: ask `getPlan`.
     */
    cachedPlan(request: { date?: string; sizes: PlanSizes }): PlanResult | undefined {
      let date = request.date
      if (date === undefined) {
        const latest = deps.latestDate.peek()
        if (!latest.known || latest.value === undefined) return undefined
        date = latest.value
      }
      const plan = cache.cut(cachedKey(date, request.sizes))
      if (!plan || !deps.days.checked(plan.day)) return undefined
      deps.observe?.cache('hit')
      return result(plan, plan.day.snapshot, 'hit')
    },

    /** `log`: the request's logger, so a fallback warning carries the request id. */
    async getPlan(request: {
      date?: string
      sizes: PlanSizes
      nocache: boolean
      log?: Pick<Logger, 'warn'>
    }): Promise<PlanResult> {
      const date = await resolveDate(request.date)
      const key = planCacheKey(date, request.sizes)
      let plan = request.nocache ? undefined : cache.cut(key)
      const hit = plan !== undefined
      deps.observe?.cache(hit ? 'hit' : 'miss')
      if (!plan) {
        plan = await cutFlights.run(request.nocache ? `${key}|nocache` : key, async () => {
          const generation = cache.generation
          const fresh = await cut(date, request.sizes, request.nocache, request.log)
          cache.setCut(key, fresh, generation)
          return fresh
        })
      }
      return result(plan, await deps.days.recheck(plan.day), hit ? 'hit' : 'miss')
    },

    /** The `_full` a verdict is decided from: the same source the plan itself would be cut from. */
    async getFull(date: string): Promise<FullPlan> {
      return (await loadDay(date, false)).full
    },

    /** Regenerates the day's Markdown plan file from a fresh plan; clears the whole cache on success. */
    async refreshPlanFile(date: string | undefined): Promise<string> {
      const resolved = await resolveDate(date)
      const plan = await cut(resolved, DEFAULT_SIZES, true)
      const { regime, market } = await deps.days.recheck(plan.day)
      let file: string
      try {
        file = await deps.files.writePlan(resolved, renderPlanMarkdown(plan.body, regime, market))
      } catch (err) {
        if (err instanceof PlanWriteError) {
          deps.log.error({ date: resolved, code: err.code, err: { message: err.message } }, 'plan file not written')
          throw new DomainError('PlanFileNotWritten', err.message, { cause: err })
        }
        throw err
      }
      cache.forget()
      return file
    },

    /** The one invalidation path: a date's plan was rewritten (`date`), or anything may have changed. */
    forget: (date?: string): void => cache.forget(date),
    cacheKeys: (): string[] => cache.keys(),
  }
}

export type PlanService = ReturnType<typeof createPlanService>
