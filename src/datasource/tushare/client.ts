/**
 * tushare's HTTP API: POST JSON `{api_name, token, params, fields}`, answer `{code, msg, data: {fields, items,
 * has_more}}`. Each interface is asked for its columns by name (interfaces.ts). An interface that pages is followed
 * by `offset` while `has_more`, up to `maxPages`; one that does not (daily, adj_factor, daily_basic, stk_limit) is
 * asked once and its answer said to be cut when it fills the interface's row limit (the caller splits by codes).
 * Calls of one interface are paced to its calls-per-minute limit; a rate-limit answer waits a minute and tries
 * again; a daily-quota answer is its own failure (`quota`). Every call has a deadline; a query's pages share one
 * byte budget, and a page is refused as it arrives once it holds more rows than the interface's limit
 * (answer-reader.ts); redirects are refused, not followed; an answer whose columns are not the ones asked, or with
 * rows that repeat a key or lie outside the asked day, codes, announcement date or period, is refused with the
 * interface named (answer-checks.ts). The token goes into request bodies only: never into an error, a log line or
 * a thrown message; what tushare says goes into them bounded and escaped (shown-text.ts).
 */
import { isLoopbackUrl } from '../../config.js'
import type { Logger } from '../../logger.js'
import { redirectRefusal } from '../../redirects.js'
import { checkColumns, checkRows } from './answer-checks.js'
import { readAnswer } from './answer-reader.js'
import { specOf } from './interfaces.js'
import { shownText } from './shown-text.js'
import { TushareError, type TushareTable } from './tushare-error.js'

export { checkRows } from './answer-checks.js'
export { TushareError, type TushareFailure, type TushareTable } from './tushare-error.js'

/** An answer of an interface that does not page: `cut` when it filled the row limit (more rows may exist). */
export interface TushareAnswer extends TushareTable {
  readonly cut: boolean
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
  /** Milliseconds one call may take, answer read whole (TUSHARE_CALL_TIMEOUT_MS). */
  readonly callTimeoutMs: number
  /** A signal that aborts after `ms`: AbortSignal.timeout unless a test's clock stands in. */
  readonly deadline?: (ms: number) => AbortSignal
  /** Bytes one query may have, all its pages together (TUSHARE_MAX_ANSWER_BYTES). */
  readonly maxAnswerBytes: number
  /** Pages one query may follow (TUSHARE_MAX_PAGES). */
  readonly maxPages: number
}

export interface TushareClient {
  /** Every row for `params`: one call, or page after page for an interface that pages. */
  query(api: string, params: Record<string, string>, signal: AbortSignal): Promise<TushareTable>
  /** One call without paging (daily, adj_factor, daily_basic, stk_limit); `cut` says it may hold fewer rows than exist. */
  once(api: string, params: Record<string, string>, signal: AbortSignal): Promise<TushareAnswer>
  /** Calls made so far, per interface (pages and retries each count). */
  readonly calls: ReadonlyMap<string, number>
}

/** A rate-limit answer is waited out this long, this many times, before the sync gives up. */
const RATE_WAIT_MS = 60_000
const RATE_RETRIES = 5

interface Answer {
  readonly code: unknown
  readonly msg: unknown
  readonly data: { fields?: unknown; items?: unknown; has_more?: unknown } | null
}

/** A page's table, its columns as asked, and whether tushare says more rows follow. */
interface Page extends TushareTable {
  readonly hasMore: boolean
}

export function classify(api: string, code: unknown, msg: string): TushareError {
  // what tushare said goes into errors, logs and run logs: bounded, its control characters shown, never obeyed
  const said = shownText(msg)
  if (/每天最多访问|次\/天|per day|daily quota/i.test(msg)) {
    return new TushareError(
      api,
      'quota',
      `tushare ${api}: the daily quota of this interface is used up (${said}); rerun after midnight Shanghai time, when it starts again`,
    )
  }
  if (/每分钟最多访问|最多访问该接口\d+次\/分钟|次\/分钟|rate limit/i.test(msg)) {
    return new TushareError(api, 'rate', `tushare ${api}: rate limit (${said})`)
  }
  if (/权限|permission/i.test(msg)) {
    return new TushareError(api, 'permission', `tushare ${api}: no permission for this interface (${said})`)
  }
  if (code === 40101 || /token/i.test(msg)) {
    return new TushareError(
      api,
      'token',
      `tushare ${api}: the token was refused (${said}); check TUSHARE_TOKEN (the token of your tushare account)`,
    )
  }
  return new TushareError(api, 'answer', `tushare ${api}: code ${shownText(code, 20)}: ${said}`)
}

export function createTushareClient(options: TushareClientOptions): TushareClient {
  const calls = new Map<string, number>()
  const lastCall = new Map<string, number>()
  const deadline = options.deadline ?? ((ms: number) => AbortSignal.timeout(ms))
  if (new URL(options.url).protocol === 'http:' && !isLoopbackUrl(options.url)) {
    options.log.warn(
      { url: options.url },
      'TUSHARE_URL is plain http: the token travels unencrypted (allowed by TUSHARE_ALLOW_HTTP); use https',
    )
  }

  async function pace(api: string, signal: AbortSignal): Promise<void> {
    const perMinute = options.rateLimits[api] ?? options.callsPerMinute
    if (perMinute <= 0) return
    const previous = lastCall.get(api)
    const wait = previous === undefined ? 0 : previous + 60_000 / perMinute - options.now()
    if (wait > 0) await options.sleep(wait, signal)
    lastCall.set(api, options.now())
  }

  /** One call's answer as JSON, within what is left of the query's byte budget (`used` grows by its bytes). */
  async function call(
    api: string,
    params: Record<string, string | number>,
    budget: { used: number },
    signal: AbortSignal,
  ): Promise<Answer> {
    await pace(api, signal)
    calls.set(api, (calls.get(api) ?? 0) + 1)
    const timeout = deadline(options.callTimeoutMs)
    const callSignal = AbortSignal.any([signal, timeout])
    const late = () =>
      new TushareError(
        api,
        'answer',
        `tushare ${api}: no whole answer within ${options.callTimeoutMs} ms (TUSHARE_CALL_TIMEOUT_MS); rerun the sync later`,
      )
    const spec = specOf(api)
    try {
      const response = await options.fetch(options.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ api_name: api, token: options.token, params, fields: spec.fields.join(',') }),
        redirect: 'manual',
        signal: callSignal,
      })
      const redirect = redirectRefusal(response, options.url)
      if (redirect !== undefined) {
        await response.body?.cancel()
        throw new TushareError(api, 'answer', `tushare ${api}: ${redirect}; set TUSHARE_URL to the final address`)
      }
      if (!response.ok) {
        await response.body?.cancel()
        throw new TushareError(api, 'answer', `tushare ${api}: ${options.url} answered HTTP ${response.status}`)
      }
      const { text, bytes } = await readAnswer(api, response, {
        bytes: options.maxAnswerBytes - budget.used,
        budget: options.maxAnswerBytes,
        rows: spec.rowLimit,
        columns: spec.fields.length,
      })
      budget.used += bytes
      try {
        return JSON.parse(text) as Answer
      } catch {
        throw new TushareError(api, 'answer', `tushare ${api}: ${options.url} answered something that is not JSON`)
      }
    } catch (err) {
      signal.throwIfAborted()
      if (timeout.aborted) throw late()
      if (err instanceof TushareError) throw err
      throw new TushareError(api, 'answer', `tushare ${api}: ${options.url} did not answer (${(err as Error).message})`)
    }
  }

  /** One call's rows with the columns asked for, rate limits waited out; other failures thrown. */
  async function answered(
    api: string,
    params: Record<string, string | number>,
    budget: { used: number },
    signal: AbortSignal,
  ): Promise<Page> {
    for (let retries = 0; ; retries++) {
      const answer = await call(api, params, budget, signal)
      if (answer !== null && typeof answer === 'object' && answer.code === 0) {
        const data = answer.data ?? { fields: [], items: [] }
        const table = checkColumns(api, data.fields, data.items)
        const limit = specOf(api).rowLimit
        if (table.items.length > limit) {
          throw new TushareError(
            api,
            'answer',
            `tushare ${api}: one call answered ${table.items.length} rows, more than the ${limit} it may: the answer is refused`,
          )
        }
        return { ...table, hasMore: data.has_more === true }
      }
      const failure = classify(api, answer?.code, String(answer?.msg ?? ''))
      if (failure.kind !== 'rate' || retries >= RATE_RETRIES) throw failure
      options.log.warn({ api, retry: retries + 1 }, `tushare ${api}: rate limit, waiting ${RATE_WAIT_MS / 1000} s`)
      await options.sleep(RATE_WAIT_MS, signal)
    }
  }

  async function once(api: string, params: Record<string, string>, signal: AbortSignal): Promise<TushareAnswer> {
    const spec = specOf(api)
    const page = await answered(api, params, { used: 0 }, signal)
    const table = { fields: page.fields, items: page.items }
    checkRows(api, params, table)
    return { ...table, cut: page.hasMore || page.items.length >= spec.rowLimit }
  }

  return {
    calls,
    once,
    async query(api, params, signal) {
      const spec = specOf(api)
      if (!spec.pages) {
        const answer = await once(api, params, signal)
        if (answer.cut) {
          throw new TushareError(
            api,
            'answer',
            `tushare ${api}: the answer filled the ${spec.rowLimit}-row limit of one call; ask by code lists`,
          )
        }
        return { fields: answer.fields, items: answer.items }
      }
      // the query's memory is bounded by its pages together: TUSHARE_MAX_ANSWER_BYTES of text, and at most
      // TUSHARE_MAX_PAGES pages of at most the interface's row limit each
      const budget = { used: 0 }
      let fields: readonly string[] = []
      const items: (readonly unknown[])[] = []
      const maxPages = Math.min(options.maxPages, spec.maxPages ?? Number.POSITIVE_INFINITY)
      for (let page = 0; ; page++) {
        if (page >= maxPages) {
          throw new TushareError(
            api,
            'answer',
            maxPages < options.maxPages
              ? `tushare ${api}: still more rows after ${maxPages} pages, more than a real answer of ${api} has: refused; check that TUSHARE_URL is tushare's`
              : `tushare ${api}: still more rows after ${maxPages} pages (TUSHARE_MAX_PAGES): refused; raise the setting if a real answer needs it`,
          )
        }
        const data = await answered(api, { ...params, limit: spec.rowLimit, offset: items.length }, budget, signal)
        if (items.length > 0 && data.items.length > 0 && data.fields.join(',') !== fields.join(',')) {
          throw new TushareError(
            api,
            'answer',
            `tushare ${api}: a page's columns are not in the order of the pages before it: the answer is refused`,
          )
        }
        if (data.fields.length > 0) fields = data.fields
        for (const item of data.items) items.push(item)
        if (!data.hasMore || data.items.length === 0) break
      }
      const table = { fields, items }
      checkRows(api, params, table)
      return table
    },
  }
}
