import type { FullPlan } from '../domain/plan-types.js'
import { regimeWithoutSnapshot } from '../domain/regime.js'
import { DomainError, errorText } from '../errors.js'
import type { Logger } from '../logger.js'
import type { PlanFiles, SnapshotRead } from '../storage/plan-files.js'
import { SingleFlight } from './cache/single-flight.js'
import type { PlanAssembler } from './plan-assembler.js'
import type { PlanDay, PlanSource, SnapshotState } from './plan-cache.js'

/** A day's snapshot state is re-checked (one `stat`) at most this often. */
export const SNAPSHOT_RECHECK_MS = 1000

/** Hooks for metrics. */
export interface PlanObserver {
  cache(result: 'hit' | 'miss'): void
  source(source: PlanSource): void
  liveAssembly(seconds: number): void
  /** A plan assembled live because snapshot mode is on and the day's snapshot was missing or unusable. */
  snapshotFallback?(): void
}

const NO_FILE: SnapshotRead = { ok: false, reason: 'missing' }

/** What a plan response says about the day's snapshot, from one read of it (or none: no file). */
export function snapshotStateOf(date: string, read: SnapshotRead): SnapshotState {
  if (!read.ok) return { present: read.reason !== 'missing', regime: regimeWithoutSnapshot(date), market: {} }
  const { regime, market } = read.snapshot
  const validRegime = regime && typeof regime === 'object' && typeof regime.status === 'string' ? regime : undefined
  const validMarket = market && typeof market === 'object' && !Array.isArray(market) ? market : undefined
  return {
    present: true,
    regime: validRegime ?? regimeWithoutSnapshot(date),
    market: (validRegime && validMarket) || {},
  }
}

export interface PlanDaysDeps {
  readonly assembler: Pick<PlanAssembler, 'assembleFull'>
  readonly files: Pick<PlanFiles, 'readSnapshot' | 'snapshotStamp'>
  readonly fromSnapshot: boolean
  readonly log: Logger
  /** Milliseconds: the re-check interval and the live assembly's duration. */
  readonly now: () => number
  readonly observe?: PlanObserver
}

/**
 * Reads a day once: the snapshot (if there is a file) gives the `_full` and the per-request part together; an
 * unusable snapshot, or snapshot mode off, assembles the `_full` live from the store.
 */
export function createPlanDays(deps: PlanDaysDeps) {
  /** The snapshot as of `stamp` (its size and mtime); no file, no read. */
  const readAt = (date: string, stamp: string | undefined): Promise<SnapshotRead> =>
    stamp === undefined ? Promise.resolve(NO_FILE) : deps.files.readSnapshot(date)

  /** True when the day's snapshot state was checked recently enough to be answered without I/O. */
  const checked = (day: PlanDay): boolean => deps.now() - day.checkedAt < SNAPSHOT_RECHECK_MS

  const rechecks = new SingleFlight<SnapshotState, PlanDay>()
  async function restat(day: PlanDay): Promise<SnapshotState> {
    const stamp = await deps.files.snapshotStamp(day.date)
    if (stamp !== day.stamp) {
      day.snapshot = snapshotStateOf(day.date, await readAt(day.date, stamp))
      day.stamp = stamp
    }
    day.checkedAt = deps.now()
    return day.snapshot
  }

  /** The day's `_full` assembled from the store; undefined when the tier table has no rows that day. */
  async function liveFull(date: string): Promise<FullPlan | undefined> {
    const started = deps.now()
    let full: FullPlan | undefined
    try {
      full = await deps.assembler.assembleFull(date)
    } catch (err) {
      throw new DomainError(
        'StoreUnavailable',
        `plan store unavailable and no usable snapshot for ${date}: ${errorText(err)}`,
        { cause: err },
      )
    }
    // a date without tier rows assembled nothing: no live assembly to count
    if (full) deps.observe?.liveAssembly((deps.now() - started) / 1000)
    return full
  }

  return {
    /** `log`: the request's logger, so a fallback warning carries the request id. */
    async read(date: string, log: Pick<Logger, 'warn'> = deps.log): Promise<PlanDay> {
      const stamp = await deps.files.snapshotStamp(date)
      const read = await readAt(date, stamp)
      const snapshot = snapshotStateOf(date, read)
      if (deps.fromSnapshot && read.ok)
        return { date, full: read.snapshot._full, source: 'snapshot', snapshot, stamp, checkedAt: deps.now() }
      const unusable = deps.fromSnapshot && !read.ok ? read.reason : undefined
      let full: FullPlan | undefined
      try {
        full = await liveFull(date)
      } catch (err) {
        if (unusable !== undefined) log.warn({ date, reason: unusable }, 'snapshot unusable and the store failed')
        throw err
      }
      // a date without tier rows is the caller's 404, not a degraded service: no warning then
      if (!full)
        throw new DomainError(
          'PlanNotFound',
          `no plan for ${date}: the tier table has no rows for that date (run the day's build first)`,
        )
      if (unusable !== undefined) {
        log.warn({ date, reason: unusable }, 'snapshot unusable, assembling the plan live')
        deps.observe?.snapshotFallback?.()
      }
      return { date, full, source: 'live', snapshot, stamp, checkedAt: deps.now() }
    },

    /** True when the day's snapshot state was checked recently enough to be answered without I/O. */
    checked,

    /**
     * The day's snapshot state, re-checked with a `stat` when due and re-read only if the file changed. Requests that
     * find the check due while one runs wait for that one: under load every request of the moment did (about 50
     * `stat`s a second at 30k requests a second, each of them a possible read of the file).
     */
    recheck(day: PlanDay): Promise<SnapshotState> {
      if (checked(day)) return Promise.resolve(day.snapshot)
      return rechecks.run(day, () => restat(day))
    },
  }
}

export type PlanDays = ReturnType<typeof createPlanDays>
