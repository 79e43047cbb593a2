/**
 * tushare's HTTP API: POST JSON `{api_name, token, params, fields}`, answer `{code, msg, data: {fields, items,
 * has_more}}`. One call per `query` page: an answer with `has_more` is followed by the next page (`offset`).
 * Calls of one interface are paced to its calls-per-minute limit; a rate-limit answer waits a minute and tries
 * again. The token goes into request bodies only: never into an error, a log line or a thrown message.
 */
import type { Logger } from '../../logger.js'

export interface TushareTable {
  readonly fields: readonly string[]
  readonly items: readonly (readonly unknown[])[]
}

export type TushareFailure = 'token' | 'permission' | 'rate' | 'answer'

/** One clear line per failure: what tushare said, about which interface, and what to do. */
export class TushareError extends Error {
  override name = 'TushareError'
  readonly api: string
  readonly kind: TushareFailure
  constructor(api: string, kind: TushareFailure, message: string) {
    super(message)
    this.api = api
    this.kind = kind
  }
}

export interface TushareClientOptions {
  readonly url: string
  readonly token: string
  /** Default calls a minute per interface; `rateLimits` overrides per interface (0 = no pacing). */
  readonly callsPerMinute: number
  readonly rateLimits: Readonly<Record<string, number>>
  readonly fetch: typeof fetch
  readonly now: () => number
  readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>
  readonly log: Logger
  /** Rows asked per page (tushare caps each interface; a full page means more may follow). */
  readonly pageSize?: number
}

export interface TushareClient {
  query(api: string, params: Record<string, string>, signal: AbortSignal): Promise<TushareTable>
  /** Calls made so far, per interface (pages and retries each count). */
  readonly calls: ReadonlyMap<string, number>
}

/** A rate-limit answer is waited out this long, this many times, before the sync gives up. */
const RATE_WAIT_MS = 60_000
const RATE_RETRIES = 5

interface Answer {
  readonly code: number
  readonly msg: string | null
  readonly data: { fields: string[]; items: unknown[][]; has_more?: boolean } | null
}

export function classify(api: string, code: number, msg: string): TushareError {
  if (/每分钟最多访问|最多访问该接口\d+次\/分钟|rate limit/i.test(msg)) {
    return new TushareError(api, 'rate', `tushare ${api}: rate limit (${msg})`)
  }
  if (/权限|permission/i.test(msg)) {
    return new TushareError(api, 'permission', `tushare ${api}: no permission for this interface (${msg})`)
  }
  if (code === 40101 || /token/i.test(msg)) {
    return new TushareError(
      api,
      'token',
      `tushare ${api}: the token was refused (${msg}); check TUSHARE_TOKEN (the token of your tushare account)`,
    )
  }
  return new TushareError(api, 'answer', `tushare ${api}: code ${code}: ${msg}`)
}

export function createTushareClient(options: TushareClientOptions): TushareClient {
  const calls = new Map<string, number>()
  const lastCall = new Map<string, number>()
  const pageSize = options.pageSize ?? 5000

  async function pace(api: string, signal: AbortSignal): Promise<void> {
    const perMinute = options.rateLimits[api] ?? options.callsPerMinute
    if (perMinute <= 0) return
    const previous = lastCall.get(api)
    const wait = previous === undefined ? 0 : previous + 60_000 / perMinute - options.now()
    if (wait > 0) await options.sleep(wait, signal)
    lastCall.set(api, options.now())
  }

  async function call(api: string, params: Record<string, string | number>, signal: AbortSignal): Promise<Answer> {
    await pace(api, signal)
    calls.set(api, (calls.get(api) ?? 0) + 1)
    let response: Response
    try {
      response = await options.fetch(options.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ api_name: api, token: options.token, params, fields: '' }),
        signal,
      })
    } catch (err) {
      signal.throwIfAborted()
      throw new TushareError(api, 'answer', `tushare ${api}: ${options.url} did not answer (${(err as Error).message})`)
    }
    if (!response.ok) {
      throw new TushareError(api, 'answer', `tushare ${api}: ${options.url} answered HTTP ${response.status}`)
    }
    return (await response.json()) as Answer
  }

  return {
    calls,
    async query(api, params, signal) {
      let fields: readonly string[] = []
      const items: (readonly unknown[])[] = []
      for (let offset = 0, retries = 0; ; ) {
        const answer = await call(api, { ...params, limit: pageSize, offset }, signal)
        if (answer.code !== 0) {
          const failure = classify(api, answer.code, answer.msg ?? '')
          if (failure.kind !== 'rate' || retries >= RATE_RETRIES) throw failure
          retries++
          options.log.warn({ api, retry: retries }, `tushare ${api}: rate limit, waiting ${RATE_WAIT_MS / 1000} s`)
          await options.sleep(RATE_WAIT_MS, signal)
          continue
        }
        const data = answer.data ?? { fields: [], items: [] }
        fields = data.fields
        for (const item of data.items) items.push(item)
        if (!data.has_more || data.items.length === 0) return { fields, items }
        offset += data.items.length
      }
    },
  }
}
