import { renderPlanMarkdown } from '../domain/markdown.js'
import { cutPlan, DEFAULT_SIZES } from '../domain/plan-assembly.js'
import type { FullPlan, PlanBody, PlanSizes } from '../domain/plan-types.js'
import { DomainError, errorText } from '../errors.js'
import type { Logger } from '../logger.js'
import { type PlanFiles, PlanWriteError } from '../storage/plan-files.js'
import { SingleFlight } from './cache/single-flight.js'
import { TtlCache } from './cache/ttl-cache.js'
import type { LatestDate } from './latest-date.js'
import type { PlanAssembler } from './plan-assembler.js'
import type { SnapshotMeta, SnapshotMetaReader } from './snapshot-meta.js'

export type PlanSource = 'snapshot' | 'live'

export interface PlanServiceDeps {
  readonly assembler: Pick<PlanAssembler, 'assembleFull'>
  readonly files: PlanFiles
  readonly snapshots: SnapshotMetaReader
  readonly latestDate: LatestDate
  readonly log: Logger
  readonly fromSnapshot: boolean
  readonly cacheSec: number
  readonly now?: () => number
  readonly observe?: PlanObserver
}

/** Hooks for metrics. */
export interface PlanObserver {
  cache(result: 'hit' | 'miss'): void
  source(source: PlanSource): void
  liveAssembly(seconds: number): void
}

interface CachedPlan {
  readonly body: PlanBody
  readonly source: PlanSource
  /** The response JSON up to (not including) the closing brace, with `plan_source`. */
  readonly jsonHead: string
}

export interface PlanResult {
  readonly body: PlanBody
  readonly source: PlanSource
  readonly cache: 'hit' | 'miss'
  readonly meta: SnapshotMeta
  /** The whole response body: the cached plan's bytes followed by this request's snapshot, regime and market. */
  readonly bytes: Buffer
  readonly dateKey: string
  readonly sizes: PlanSizes
}

export const PLAN_CACHE_MAX = 8

const keyOf = (date: string, s: PlanSizes): string => `${date}|${s.top}|${s.obs_top}|${s.theme_cap}`

export function createPlanService(deps: PlanServiceDeps) {
  const cache = new TtlCache<CachedPlan>({ ttlMs: deps.cacheSec * 1000, max: PLAN_CACHE_MAX, now: deps.now })
  const flights = new SingleFlight<CachedPlan>()
  const fullFlights = new SingleFlight<{ full: FullPlan; source: PlanSource }>()
  // The day's `_full` (up to a megabyte of JSON), kept like the plans themselves so that other sizes and the
  // verdict lookups do not read and parse the snapshot again on every request.
  const fulls = new TtlCache<{ full: FullPlan; source: PlanSource }>({
    ttlMs: deps.cacheSec * 1000,
    max: 4,
    now: deps.now,
  })
  // The response bytes of a cached plan with the snapshot state they were last sent with: a hit under steady
  // load sends the same buffer instead of building 50 KB of garbage per request. A new snapshot state is a new
  // SnapshotMeta object, so the bytes are rebuilt as soon as the per-request part changes.
  const composed = new WeakMap<CachedPlan, { meta: SnapshotMeta; bytes: Buffer }>()
  function responseBytes(entry: CachedPlan, meta: SnapshotMeta): Buffer {
    const last = composed.get(entry)
    if (last?.meta === meta) return last.bytes
    const bytes = Buffer.from(entry.jsonHead + meta.jsonTail)
    composed.set(entry, { meta, bytes })
    return bytes
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

  /** The day's `_full` assembled from the store; undefined when the tier table has no rows that day. */
  async function liveFull(date: string): Promise<FullPlan | undefined> {
    const started = performance.now()
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
    if (full) deps.observe?.liveAssembly((performance.now() - started) / 1000)
    return full
  }

  /**
   * The day's `_full`: from its snapshot when snapshot mode is on and the file is usable, else assembled live;
   * `fresh` skips the kept one (nocache, refresh) and keeps the new one.
   */
  function loadFull(
    date: string,
    fresh: boolean,
    log: Pick<Logger, 'warn'> = deps.log,
  ): Promise<{ full: FullPlan; source: PlanSource }> {
    const kept = fresh ? undefined : fulls.get(date)
    if (kept) return Promise.resolve(kept)
    return fullFlights.run(fresh ? `${date}|fresh` : date, async () => {
      let unusable: string | undefined
      if (deps.fromSnapshot) {
        const read = await deps.files.readSnapshot(date)
        if (read.ok) {
          const loaded = { full: read.snapshot._full, source: 'snapshot' as const }
          fulls.set(date, loaded)
          return loaded
        }
        unusable = read.reason
      }
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
      if (unusable !== undefined) log.warn({ date, reason: unusable }, 'snapshot unusable, assembling the plan live')
      const loaded = { full, source: 'live' as const }
      fulls.set(date, loaded)
      return loaded
    })
  }

  async function compute(
    date: string,
    sizes: PlanSizes,
    fresh: boolean,
    log?: Pick<Logger, 'warn'>,
  ): Promise<CachedPlan> {
    if (date === '')
      throw new DomainError(
        'PlanNotFound',
        "no plan: the tier table is empty or unreadable (run the day's build first)",
      )
    const { full, source } = await loadFull(date, fresh, log)
    deps.observe?.source(source)
    const body = cutPlan(full, sizes)
    const json = JSON.stringify({ ...body, plan_source: source })
    return { body, source, jsonHead: json.slice(0, -1) }
  }

  return {
    /**
     * A cache hit answered without waiting (no promise, no I/O): the data date known, the cut cached and the
     * snapshot state checked within the last second. Anything else is `undefined`: ask `getPlan`.
     */
    cachedPlan(request: { date?: string; sizes: PlanSizes }): PlanResult | undefined {
      let date = request.date
      if (date === undefined) {
        const latest = deps.latestDate.peek()
        if (!latest.known || latest.value === undefined) return undefined
        date = latest.value
      }
      const entry = cache.get(keyOf(date, request.sizes))
      if (!entry) return undefined
      const meta = deps.snapshots.peek(entry.body.date)
      if (!meta) return undefined
      deps.observe?.cache('hit')
      const bytes = responseBytes(entry, meta)
      return { body: entry.body, source: entry.source, cache: 'hit', meta, bytes, dateKey: date, sizes: request.sizes }
    },

    /** `log`: the request's logger, so a fallback warning carries the request id. */
    async getPlan(request: {
      date?: string
      sizes: PlanSizes
      nocache: boolean
      log?: Pick<Logger, 'warn'>
    }): Promise<PlanResult> {
      const date = await resolveDate(request.date)
      const key = keyOf(date, request.sizes)
      let entry = request.nocache ? undefined : cache.get(key)
      const hit = entry !== undefined
      deps.observe?.cache(hit ? 'hit' : 'miss')
      if (!entry) {
        entry = await flights.run(request.nocache ? `${key}|nocache` : key, async () => {
          const computed = await compute(date, request.sizes, request.nocache, request.log)
          cache.set(key, computed)
          return computed
        })
      }
      const meta = await deps.snapshots.get(entry.body.date)
      return {
        body: entry.body,
        source: entry.source,
        cache: hit ? 'hit' : 'miss',
        meta,
        bytes: responseBytes(entry, meta),
        dateKey: date,
        sizes: request.sizes,
      }
    },

    /** The `_full` a verdict is decided from: the same source the plan itself would be cut from. */
    async getFull(date: string): Promise<FullPlan> {
      return (await loadFull(date, false)).full
    },

    /** Regenerates the day's Markdown plan file from a fresh plan; clears the whole cache on success. */
    async refreshPlanFile(date: string | undefined): Promise<string> {
      const resolved = await resolveDate(date)
      const plan = await compute(resolved, DEFAULT_SIZES, true)
      const meta = await deps.snapshots.get(resolved)
      let file: string
      try {
        file = await deps.files.writePlan(resolved, renderPlanMarkdown(plan.body, meta.regime, meta.market))
      } catch (err) {
        if (err instanceof PlanWriteError) {
          deps.log.error({ date: resolved, code: err.code, err: { message: err.message } }, 'plan file not written')
          throw new DomainError('PlanFileNotWritten', err.message, { cause: err })
        }
        throw err
      }
      cache.clear()
      return file
    },

    /** A date's plan was rewritten: its cached cuts are stale. */
    forgetDate(date: string): void {
      for (const key of cache.keys()) if (key.startsWith(`${date}|`)) cache.delete(key)
      fulls.delete(date)
    },

    renderMarkdown: (result: PlanResult): string =>
      renderPlanMarkdown(result.body, result.meta.regime, result.meta.market),
    clearCache: (): void => {
      cache.clear()
      fulls.clear()
    },
    cacheKeys: (): string[] => cache.keys(),
  }
}

export type PlanService = ReturnType<typeof createPlanService>
