import { DEFAULT_BENCHMARK } from '../domain/outcomes.js'
import { calendarWindowAround, type PlanDue, planDue, shanghaiDay } from '../domain/plan-due.js'
import { NO_SKILL, type Skill, skillOf } from '../domain/skill.js'
import type { Logger } from '../logger.js'
import type { MonitoringRepository, OutboxFacts, PlanRows, StepFacts } from '../storage/monitoring.repository.js'
import { withDeadline } from './deadline.js'
import type { TrackRecordService } from './track-record.service.js'

/** What `/metrics` says about the plan, the chain, the sync and the outbox: read from the store, briefly kept. */
export interface OperationalReadings {
  /** Whether the last read of the store answered within its deadline. */
  readonly storeUp: boolean
  /** When these facts were read (ms); the values below are the last ones read while the store answered. */
  readonly readAtMs: number
  readonly latestPlanDate: string | undefined
  readonly due: PlanDue
  readonly steps: readonly StepFacts[]
  readonly outbox: OutboxFacts
  /** The oldest trading day a sync stored incomplete (undefined: none). */
  readonly oldestIncompleteSyncedDay: string | undefined
  /** Open days of the stored calendar after today (Shanghai). */
  readonly futureSessions: number
  /**
   * The latest plan's lists (undefined until the plan step has written its daily rows), and its pool's size
   * (undefined: no pool file for it).
   */
  readonly planRows: Partial<PlanRows> & { readonly pool: number | undefined }
}

export interface ReadingTimings {
  /** A read is reused this long; a scrape in between reads nothing. */
  readonly ttlMs: number
  /** Longest a scrape waits for the store; after it the last values stand and `storeUp` is false. */
  readonly deadlineMs: number
  /** How far back the chain's runs are looked at. */
  readonly stepWindowMs: number
}

export const READING_TIMINGS: ReadingTimings = { ttlMs: 10_000, deadlineMs: 1_000, stepWindowMs: 35 * 86_400_000 }

const NOTHING_READ = {
  latestPlanDate: undefined,
  due: { expectedDate: undefined, lastCloseAtMs: undefined, nextDate: undefined },
  steps: [],
  outbox: { depth: 0, oldestCreatedAt: undefined },
  oldestIncompleteSyncedDay: undefined,
  futureSessions: 0,
  planRows: { main: undefined, observe: undefined, pool: undefined },
} as const

/**
 * Reads the store at most once per `ttlMs`, one read in flight at a time, and waits for it at most `deadlineMs`:
 * a frozen store costs a scrape one deadline per `ttlMs` and ties up one read, never a queue of them. A failed or
 * late read marks the store down and keeps the last values (a date known a minute ago is still the best answer).
 */
export function createOperationalReadings(deps: {
  repository: MonitoringRepository
  latestPlanDate: () => Promise<string | undefined>
  /** How many codes the pool file of a date holds (undefined: none written). */
  poolSize: (date: string) => Promise<number | undefined>
  now: () => number
  log: Pick<Logger, 'warn'>
  timings?: Partial<ReadingTimings>
}): () => Promise<OperationalReadings> {
  const timings = { ...READING_TIMINGS, ...deps.timings }
  let last: OperationalReadings = { storeUp: false, readAtMs: Number.NEGATIVE_INFINITY, ...NOTHING_READ }
  let inflight: Promise<OperationalReadings> | undefined

  const readStore = async (): Promise<OperationalReadings> => {
    const now = deps.now()
    const window = calendarWindowAround(now)
    const [latestPlanDate, calendar, futureSessions, steps, outbox, oldestIncompleteSyncedDay] = await Promise.all([
      deps.latestPlanDate(),
      deps.repository.calendarWindow(window.from, window.to),
      deps.repository.futureSessions(shanghaiDay(now)),
      deps.repository.chainSteps(new Date(now - timings.stepWindowMs)),
      deps.repository.outbox(),
      deps.repository.oldestIncompleteSyncedDay(),
    ])
    const [rows, pool] =
      latestPlanDate === undefined
        ? [NOTHING_READ.planRows, undefined]
        : await Promise.all([deps.repository.planRows(latestPlanDate), deps.poolSize(latestPlanDate)])
    return {
      storeUp: true,
      readAtMs: now,
      latestPlanDate,
      due: planDue(calendar, now),
      steps,
      outbox,
      oldestIncompleteSyncedDay,
      futureSessions,
      planRows: { main: rows?.main, observe: rows?.observe, pool },
    }
  }

  return async () => {
    if (deps.now() - last.readAtMs < timings.ttlMs) return last
    inflight ??= readStore().finally(() => {
      inflight = undefined
    })
    try {
      last = await withDeadline(inflight, timings.deadlineMs, 'the store read for /metrics')
    } catch (err) {
      if (last.storeUp) deps.log.warn({ err: { message: (err as Error).message } }, 'store unreadable for /metrics')
      last = { ...last, storeUp: false, readAtMs: deps.now() }
    }
    return last
  }
}

/**
 * The track record's figures, evaluated in the background at most once per `ttlMs` (an evaluation reads a year
 * of plan days): a scrape never waits for one and reads the last figures (NaN until the first is done).
 */
export function createSkillReadings(deps: {
  evaluate: () => Promise<Skill>
  now: () => number
  log: Pick<Logger, 'warn'>
  ttlMs?: number
}): () => Skill {
  const ttlMs = deps.ttlMs ?? 10 * 60_000
  let last: Skill = NO_SKILL
  let startedAtMs = Number.NEGATIVE_INFINITY
  let running = false
  return () => {
    if (!running && deps.now() - startedAtMs >= ttlMs) {
      running = true
      startedAtMs = deps.now()
      deps.evaluate().then(
        (skill) => {
          last = skill
          running = false
        },
        (err: unknown) => {
          // the last figures stand: a store that failed for a moment has not changed the record
          deps.log.warn({ err: { message: (err as Error).message } }, 'track record unreadable for /metrics')
          running = false
        },
      )
    }
    return last
  }
}

/** The track record the skill gauges read: one week's horizon against the default benchmark, over the last year. */
export const SKILL_HORIZON = 5
const SKILL_YEARS_MS = 366 * 86_400_000

/**
 * The figures behind `stockplan_track_record_*`. Issue 38 rewrites the main book's simulation: the drawdown is read
 * by `mainBookDrawdown` (src/domain/skill.ts), the one function to point at the new book.
 */
export async function evaluateSkill(trackRecord: TrackRecordService, nowMs: number): Promise<Skill> {
  const from = new Date(nowMs - SKILL_YEARS_MS).toISOString().slice(0, 10)
  return skillOf(await trackRecord.evaluate({ horizon: SKILL_HORIZON, benchmark: DEFAULT_BENCHMARK, from }))
}
