import type { Config } from '../config.js'
import { PLAN_VERSION } from '../domain/plan-version.js'
import type { Logger } from '../logger.js'
import { createLatestDate, type LatestDate } from '../services/latest-date.js'
import { createPlanService, type PlanObserver, type PlanService } from '../services/plan.service.js'
import { createPlanAssembler, type PlanAssembler } from '../services/plan-assembler.js'
import { createPlanDays } from '../services/plan-days.js'
import { storeChangeListener } from '../storage/store-changes.js'
import type { Repositories, StoreHandle } from './repositories.js'

/** The caches kept from a plan's rows besides the plan's own (the verdict and logic-state lookups). */
export interface DerivedCaches {
  forgetDate(date: string): void
  clear(): void
}

export interface PlanServing {
  readonly assembler: PlanAssembler
  readonly latestDate: LatestDate
  readonly plans: PlanService
  /** A date's plan was written: its cached plan and what the lookups kept from it. */
  forgetPlan(date: string): void
  /** A build changed tier rows: the latest date, and what the lookups kept from the old rows. */
  forgetTiers(): void
}

export interface PlanServingDeps {
  readonly config: Config
  readonly log: Logger
  readonly store: StoreHandle
  readonly repositories: Pick<Repositories, 'tiers' | 'inputs' | 'files'>
  /** An injected clock; without one, the system's. */
  readonly now?: () => Date
  /** Keep a LISTEN connection for new tier dates. */
  readonly listen?: boolean
  readonly observe?: PlanObserver
  /** Late-bound: the lookups are built over this area's latest date and plans. */
  readonly derived: DerivedCaches
}

/** The plan as served: the assembler, the latest date (told of other processes' writes) and the plan cache. */
export function createPlanServing(deps: PlanServingDeps): PlanServing {
  const { config, log, store, derived } = deps
  const now = deps.now ?? (() => new Date())
  const { tiers, inputs, files } = deps.repositories
  const assembler = createPlanAssembler({ inputs, planVersion: PLAN_VERSION, now })
  // Date.now itself unless a clock is injected: a cached plan hit reads the time twice, and a Date each is garbage
  const nowMs: () => number = deps.now ? () => now().getTime() : Date.now
  const forgetPlan = (date: string): void => {
    plans.forget(date)
    derived.forgetDate(date)
  }
  const forgetTiers = (): void => {
    latestDate.invalidate()
    derived.clear()
  }
  const latestDate = createLatestDate({
    listen:
      deps.listen && store.url
        ? storeChangeListener({ url: store.url, log, timings: { heartbeatMs: config.storeHeartbeatMs } })
        : undefined,
    query: () => tiers.latestDate(),
    log,
    onPlanWritten: forgetPlan,
    onTierChanged: () => forgetTiers(),
    onResync: () => {
      plans.forget()
      forgetTiers()
    },
  })
  const plans = createPlanService({
    days: createPlanDays({
      assembler,
      files,
      fromSnapshot: config.planFromSnapshot,
      log,
      now: nowMs,
      observe: deps.observe,
    }),
    files,
    latestDate,
    log,
    cacheSec: config.planCacheSec,
    now: nowMs,
    observe: deps.observe,
  })
  return { assembler, latestDate, plans, forgetPlan, forgetTiers }
}
