import http, { type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http'
import { performance } from 'node:perf_hooks'
import type { PlanSizes } from '../domain/plan-types.js'
import type { PlanResult } from '../services/plan.service.js'
import { type ConnectionLimits, deadlineCheckOptions, limitConnections, type Refusal } from './connection-limits.js'
import { logPlanServed, matchesEtag, PLAN_CACHE_CONTROL, type PlanJson, type PlanResponse } from './plan-response.js'

/** What the lane needs of the plan service: the cache lookup that answers in the same tick, nothing else. */
export interface CachedPlans {
  cachedPlan(request: { date?: string; sizes: PlanSizes }): PlanResult | undefined
}

/** A `GET /plan` URL the route validated and answered as JSON, with what its query parsed to. */
export interface LearntPlanUrl {
  readonly date: string | undefined
  readonly sizes: PlanSizes
  /** As the access line shows it (at most 40 characters). */
  readonly format: string
}

export interface PlanHitLaneDeps {
  readonly plans: CachedPlans
  /** The route's bytes of a result, made once per cached cut and snapshot state (see plan-response.ts). */
  readonly responses: (result: PlanResult, serialize: (plan: PlanJson) => string) => PlanResponse
  readonly observeRequest: (route: string, method: string, status: number, seconds: number) => void
  /** The app's request ids, so that ids stay unique and in order across the lane and Fastify. */
  readonly nextRequestId: () => string
  /** Counts a request the lane answered (`GET /metrics`). */
  readonly answered: () => void
  /** false for a `Host` the app refuses (ALLOWED_HOSTS): such a request goes to Fastify, which answers 403. */
  readonly acceptsHost: (host: string | undefined) => boolean
}

export interface PlanHitLane {
  /** The route, after answering `url` with a JSON plan: the lane may answer that exact URL's cache hits itself. */
  learn(url: string, parsed: LearntPlanUrl, serialize: (plan: PlanJson) => string): void
  /** A node request listener in front of Fastify's: answers learnt URLs' cache hits, hands everything else on. */
  listener(fastify: RequestListener): RequestListener
  /** From now on every request goes to Fastify (which answers 503 while it closes). */
  stop(): void
}

const MAX_LEARNT = 256
const JSON_TYPE = 'application/json; charset=utf-8'

/**
 * Cached `GET /plan` answered before Fastify routes it. A cache hit needs none of what Fastify does per request
 * (routing, query parsing, schema coercion, the query checks, hooks, a request and a reply object): the route has
 * already validated this exact URL once, and its parse is a pure function of the URL. The lane keeps the learnt
 * URLs (at most 256, oldest forgotten first), asks the plan cache for each request as the route would, and writes
 * the same bytes, headers, metrics and access line. Anything else (another method or URL, a miss, `format=md`,
 * `nocache`) goes to Fastify unchanged.
 */
export function createPlanHitLane(deps: PlanHitLaneDeps): PlanHitLane {
  const learnt = new Map<string, LearntPlanUrl>()
  let serializeJson: ((plan: PlanJson) => string) | undefined
  let open = true

  function answer(req: IncomingMessage, res: ServerResponse, url: LearntPlanUrl, started: number): boolean {
    const result = deps.plans.cachedPlan({ date: url.date, sizes: url.sizes })
    if (!result || !serializeJson) return false
    const response = deps.responses(result, serializeJson)
    const notModified = matchesEtag(req.headers['if-none-match'], response.etag)
    // the headers the route sends for the same answer (test/http/plan-hit-lane.test.ts compares them)
    if (notModified) {
      res.writeHead(304, {
        'x-content-type-options': 'nosniff',
        'cache-control': PLAN_CACHE_CONTROL,
        etag: response.etag,
      })
      res.end()
    } else {
      res.writeHead(200, {
        'content-type': JSON_TYPE,
        'content-length': response.bytes.length,
        'x-content-type-options': 'nosniff',
        'cache-control': PLAN_CACHE_CONTROL,
        etag: response.etag,
      })
      res.end(response.bytes)
    }
    const status = notModified ? 304 : 200
    const seconds = (performance.now() - started) / 1000
    deps.observeRequest('/plan', 'GET', status, seconds)
    logPlanServed(response, {
      reqId: deps.nextRequestId(),
      client: req.socket.remoteAddress,
      cache: result.cache,
      format: url.format,
      seconds,
      status,
    })
    deps.answered()
    return true
  }

  return {
    learn(url, parsed, serialize) {
      serializeJson = serialize
      if (learnt.has(url)) return
      if (learnt.size >= MAX_LEARNT) learnt.delete(learnt.keys().next().value as string)
      learnt.set(url, parsed)
    },
    listener(fastify) {
      return (req, res) => {
        if (open && req.method === 'GET' && deps.acceptsHost(req.headers.host)) {
          const url = req.url === undefined ? undefined : learnt.get(req.url)
          if (url && answer(req, res, url, performance.now())) return
        }
        fastify(req, res)
      }
    },
    stop() {
      open = false
    },
  }
}

/**
 * Fastify's `serverFactory`: an HTTP/1 server with the lane's listener in front of Fastify's, and the connection
 * deadlines and caps applied before node's parser sees a connection (Fastify's own timeout options are not used).
 */
export function serverWithLane(lane: PlanHitLane, limits: ConnectionLimits, onRefused?: (refusal: Refusal) => void) {
  return (fastify: RequestListener): http.Server => {
    const server = http.createServer(deadlineCheckOptions, lane.listener(fastify))
    limitConnections(server, limits, onRefused)
    return server
  }
}
