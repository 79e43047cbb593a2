import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import type { Skill } from '../domain/skill.js'
import { deadlineProbe } from './deadline.js'
import { registerOperationalMetrics } from './operational-metrics.js'
import { type OperationalReadings, READING_TIMINGS } from './operational-readings.js'
import type { PlanObserver } from './plan.service.js'
import { registerRequestMetrics } from './request-metrics.js'

export interface SchedulerStatus {
  readonly running: number
  readonly queued: number
  readonly outboxPending: number
}

export interface Metrics {
  readonly registry: Registry
  readonly plan: PlanObserver
  observeRequest(route: string, method: string, status: number, seconds: number): void
  chainRun(result: string): void
  /** A cached `GET /plan` answered before routing (src/http/plan-hit-lane.ts). */
  planHitLane(): void
  /**
   * Where the callback outbox depth and queue sizes are read from at scrape time: one read in flight, waited for at
   * most the store reading's deadline (`READING_TIMINGS`), the last values standing when it is late.
   */
  setSchedulerStatus(read: () => Promise<SchedulerStatus>, deadlineMs?: number): void
  /** Where the plan, chain, sync, outbox, store and skill gauges are read from at scrape time. */
  setOperationalSource(source: OperationalSource): void
}

export interface OperationalSource {
  readonly readings: () => Promise<OperationalReadings>
  readonly skill: () => Skill
}

/** One registry per process (or per test app): request, plan cache/source, assembly, chain and outbox metrics. */
export function createMetrics(options: { defaults?: boolean } = {}): Metrics {
  const registry = new Registry()
  if (options.defaults !== false) collectDefaultMetrics({ register: registry })
  const observeRequest = registerRequestMetrics(
    registry,
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  )
  // counted in plain numbers and handed over when scraped: prom-client's `inc` hashes and validates the labels on
  // every call, and a cached plan hit counts one lookup
  const lookups = { hit: 0, miss: 0 }
  new Counter({
    name: 'plan_cache_total',
    help: 'Plan cache lookups by result',
    labelNames: ['result'],
    registers: [registry],
    collect() {
      this.reset()
      this.inc({ result: 'hit' }, lookups.hit)
      this.inc({ result: 'miss' }, lookups.miss)
    },
  })
  let hitLane = 0
  new Counter({
    name: 'plan_hit_lane_total',
    help: 'Cached GET /plan requests answered before routing (also counted in the request metrics)',
    registers: [registry],
    collect() {
      this.reset()
      this.inc(hitLane)
    },
  })
  const source = new Counter({
    name: 'plan_source_total',
    help: 'Plans computed by source',
    labelNames: ['source'],
    registers: [registry],
  })
  const assembly = new Histogram({
    name: 'plan_live_assembly_seconds',
    help: 'Duration of live plan assembly',
    buckets: [0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 1, 2, 5, 10, 30],
    registers: [registry],
  })
  const chains = new Counter({
    name: 'chain_runs_total',
    help: 'Scheduler chain runs by result',
    labelNames: ['result'],
    registers: [registry],
  })
  let readSchedulerStatus: (() => Promise<SchedulerStatus>) | undefined
  let lastStatus: SchedulerStatus = { running: 0, queued: 0, outboxPending: 0 }
  // the outbox depth is a count over callback_outbox: a locked or frozen store must not hold a scrape past the
  // deadline the operational gauges keep (stockplan_store_up then says the store is down)
  const schedulerStatus = async (): Promise<SchedulerStatus> => {
    if (!readSchedulerStatus) return lastStatus
    lastStatus = await readSchedulerStatus().catch(() => lastStatus)
    return lastStatus
  }
  new Gauge({
    name: 'callback_outbox_depth',
    help: 'Scheduler callbacks not yet delivered to the XXL-JOB admin',
    registers: [registry],
    async collect() {
      this.set((await schedulerStatus()).outboxPending)
    },
  })
  new Gauge({
    name: 'scheduler_runs',
    help: 'Scheduler runs by state',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      const status = await schedulerStatus()
      this.set({ state: 'running' }, status.running)
      this.set({ state: 'queued' }, status.queued)
    },
  })
  let operational: OperationalSource | undefined
  registerOperationalMetrics(registry, () => operational)
  const fallbacks = new Counter({
    name: 'stockplan_plan_snapshot_fallbacks_total',
    help: "Plans assembled live because the day's snapshot was missing or unusable (snapshot mode on)",
    registers: [registry],
  })
  fallbacks.inc(0)
  // label sets bound once (two possible values each)
  const sourceBy = { snapshot: source.labels({ source: 'snapshot' }), live: source.labels({ source: 'live' }) }
  for (const bound of [sourceBy.snapshot, sourceBy.live]) bound.inc(0)
  return {
    registry,
    plan: {
      cache: (result) => {
        lookups[result]++
      },
      source: (s) => sourceBy[s].inc(),
      liveAssembly: (seconds) => assembly.observe(seconds),
      snapshotFallback: () => fallbacks.inc(),
    },
    observeRequest,
    chainRun: (result) => chains.inc({ result }),
    planHitLane: () => {
      hitLane++
    },
    setSchedulerStatus(read, deadlineMs = READING_TIMINGS.deadlineMs) {
      readSchedulerStatus = deadlineProbe(read, deadlineMs, 'the scheduler status for /metrics')
    },
    setOperationalSource(source) {
      operational = source
    },
  }
}
