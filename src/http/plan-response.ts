import { createHash } from 'node:crypto'
import type { Logger } from '../logger.js'
import type { PlanCut, PlanResult, SnapshotState } from '../services/plan.service.js'
import { type PlanLine, planAccessLine } from './plan-access-line.js'

/** The JSON form of a served plan, as the `Plan` schema describes it: the cut, its source and this request's part. */
export function planJson(result: PlanResult) {
  const { plan, snapshot } = result
  return {
    ...plan.body,
    plan_source: plan.day.source,
    snapshot: snapshot.present ? ('present' as const) : ('missing' as const),
    regime: snapshot.regime,
    market: snapshot.market,
  }
}

export type PlanJson = ReturnType<typeof planJson>

export interface PlanResponse {
  readonly bytes: Buffer
  /** A strong validator of `bytes`, made with them: a client that has them revalidates for a 304 without a body. */
  readonly etag: string
  /**
   * Writes the spec's access line. The fields fixed for these bytes (date, regime status, generated_at,
   * plan_version, the three sizes, plan source) are bound once (`planAccessLine`).
   */
  readonly line: PlanLine
}

/** What a served request adds to the access line's fields bound for its bytes. */
export interface PlanServed {
  readonly reqId: string
  readonly client: string | undefined
  readonly cache: PlanResult['cache']
  /** As the request gave it, at most 40 characters. */
  readonly format: string
  readonly seconds: number
  /** 200, or 304 when the client's If-None-Match named these bytes. */
  readonly status?: 200 | 304
}

/**
 * The Cache-Control of every plan answer, dated or not, JSON or Markdown: a cache must revalidate it each time (its
 * ETag makes that a bodiless 304). Nothing is kept by age, because a dated plan changes too when its day is
 * rebuilt and refreshed (`POST /plan/refresh`), and a browser or proxy would serve the old list until the age ran out.
 */
export const PLAN_CACHE_CONTROL = 'no-cache'

/** Whether an If-None-Match header names `etag` (or is `*`); a weak form of it matches too (RFC 9110 13.1.2). */
export function matchesEtag(ifNoneMatch: string | string[] | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false
  const header = Array.isArray(ifNoneMatch) ? ifNoneMatch.join(',') : ifNoneMatch
  return header.split(',').some((tag) => {
    const trimmed = tag.trim()
    return trimmed === '*' || trimmed === etag || trimmed === `W/${etag}`
  })
}

/** The spec's access line of a served plan (from the route, or from the hit lane before routing). */
export function logPlanServed(response: PlanResponse, served: PlanServed): void {
  response.line({
    reqId: served.reqId,
    client: served.client,
    cache: served.cache,
    format: served.format,
    status: served.status ?? 200,
    elapsed_s: Math.round(served.seconds * 1e6) / 1e6,
  })
}

/**
 * The bytes of a plan response, made at most once per cached cut and snapshot state: a hit under steady load
 * sends the same buffer instead of serialising 20 KB or more per request. Keyed by the cut itself, so an entry
 * lives exactly as long as the cache keeps the cut and needs no invalidation of its own.
 */
export function createPlanResponses(root: Logger) {
  const made = new WeakMap<PlanCut, { snapshot: SnapshotState; response: PlanResponse }>()
  return (result: PlanResult, serialize: (plan: PlanJson) => string): PlanResponse => {
    const last = made.get(result.plan)
    if (last?.snapshot === result.snapshot) return last.response
    const { body, sizes, day } = result.plan
    const bytes = Buffer.from(serialize(planJson(result)))
    const response = {
      bytes,
      etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 32)}"`,
      line: planAccessLine(root, {
        date: body.date,
        regime: result.snapshot.regime.status,
        generated_at: body.generated_at,
        plan_version: body.plan_version,
        top: sizes.top,
        obs_top: sizes.obs_top,
        theme_cap: sizes.theme_cap,
        plan_source: day.source,
      }),
    }
    made.set(result.plan, { snapshot: result.snapshot, response })
    return response
  }
}
