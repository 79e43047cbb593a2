import type { FullPlan, PlanBody, PlanSizes } from '../domain/plan-types.js'
import type { Market, Regime } from '../domain/regime.js'
import { TtlCache } from './cache/ttl-cache.js'

export type PlanSource = 'snapshot' | 'live'

/** The per-request part of a plan, from the day's snapshot; a new object whenever the file changed. */
export interface SnapshotState {
  readonly present: boolean
  readonly regime: Regime
  readonly market: Market | Record<string, never>
}

/**
 * One read of a day: the `_full` plans are cut from (from the snapshot, or assembled live), and the snapshot's
 * per-request part taken from the same read. `snapshot`, `stamp` and `checkedAt` move on when a re-check finds the
 * file changed (or gone); the `_full` stays until the day is forgotten or expires.
 */
export interface PlanDay {
  readonly date: string
  readonly full: FullPlan
  readonly source: PlanSource
  snapshot: SnapshotState
  /** The snapshot file's size and mtime when `snapshot` was read; undefined when there was no file. */
  stamp: string | undefined
  /** When the file was last found unchanged (or read). */
  checkedAt: number
}

/** One cached plan: the body cut by its sizes, and the day it was cut from. Immutable while cached. */
export interface PlanCut {
  readonly body: PlanBody
  readonly sizes: PlanSizes
  readonly day: PlanDay
}

/** At most this many cuts are kept (the spec's 8 entries); the oldest is evicted first. */
export const PLAN_CACHE_MAX = 8
/** Days (each up to a megabyte of parsed `_full`) kept for other sizes and the verdict lookups. */
const DAYS_KEPT = 4

export const planCacheKey = (date: string, s: PlanSizes): string => `${date}|${s.top}|${s.obs_top}|${s.theme_cap}`

/**
 * The plan cache: the cut plans by (date, sizes) and the days they are cut from, both with the same lifetime.
 * `forget` is its one invalidation path (a refresh, a date's plan rewritten, the listener back after a loss).
 * A load that started before a `forget` is not stored: it may have read what was just declared stale.
 */
export class PlanCache {
  readonly #cuts: TtlCache<PlanCut>
  readonly #days: TtlCache<PlanDay>
  #generation = 0

  constructor(options: { ttlMs: number; now: () => number }) {
    this.#cuts = new TtlCache({ ttlMs: options.ttlMs, max: PLAN_CACHE_MAX, now: options.now })
    this.#days = new TtlCache({ ttlMs: options.ttlMs, max: DAYS_KEPT, now: options.now })
  }

  /** Taken when a load starts and handed back to `setCut`/`setDay`. */
  get generation(): number {
    return this.#generation
  }

  cut(key: string): PlanCut | undefined {
    return this.#cuts.get(key)
  }

  setCut(key: string, cut: PlanCut, generation: number): void {
    if (generation === this.#generation) this.#cuts.set(key, cut)
  }

  day(date: string): PlanDay | undefined {
    return this.#days.get(date)
  }

  setDay(day: PlanDay, generation: number): void {
    if (generation === this.#generation) this.#days.set(day.date, day)
  }

  /** Drops one date's cuts and day, or everything. */
  forget(date?: string): void {
    this.#generation++
    if (date === undefined) {
      this.#cuts.clear()
      this.#days.clear()
      return
    }
    for (const key of this.#cuts.keys()) if (key.startsWith(`${date}|`)) this.#cuts.delete(key)
    this.#days.delete(date)
  }

  /** The cut keys, oldest first. */
  keys(): string[] {
    return this.#cuts.keys()
  }
}
