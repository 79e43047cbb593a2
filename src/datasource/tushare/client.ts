/**
 * tushare's HTTP API: POST JSON `{api_name, token, params, fields}`, answer `{code, msg, data: {fields, items,
 * has_more}}`. Each interface is asked for its columns by name (interfaces.ts). An interface that pages is followed
 * by `offset` while `has_more`, up to `maxPages`; one that does not (daily, adj_factor, daily_basic, stk_limit) is
 * asked once and its answer said to be cut when it fills the interface's row limit (the caller splits by codes).
 * Calls of one interface are paced to its calls-per-minute limit; a rate-limit answer waits a minute and tries
 * again; a daily-quota answer is its own failure (`quota`). Every call has a deadline and a cap on answer bytes;
 * redirects are refused, not followed; rows that repeat a key or lie outside the asked day, codes, announcement
 * date or period are refused with the interface named. The token goes into request bodies only: never into an
 * error, a log line or a thrown message.
 */
import type { Logger } from '../../logger.js'
import { redirectRefusal } from '../../redirects.js'
import { INTERFACES, type InterfaceSpec, ROW_MATCHES } from './interfaces.js'

export interface TushareTable {
  readonly fields: readonly string[]
  readonly items: readonly (readonly unknown[])[]
}

/** An answer of an interface that does not page: `cut` when it filled the row limit (more rows may exist). */
export interface TushareAnswer extends TushareTable {
  readonly cut: boolean
}

export type TushareFailure = 'token' | 'permission' | 'rate' | 'quota' | 'answer'

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
  /** Milliseconds one call may take, answer read whole (TUSHARE_CALL_TIMEOUT_MS). */
  readonly callTimeoutMs: number
  /** A signal that aborts after `ms`: AbortSignal.timeout unless a test's clock stands in. */
  readonly deadline?: (ms: number) => AbortSignal
  /** Bytes one answer may have (TUSHARE_MAX_ANSWER_BYTES). */
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
  readonly code: number
  readonly msg: string | null
  readonly data: { fields: string[]; items: unknown[][]; has_more?: boolean } | null
}

export function classify(api: string, code: number, msg: string): TushareError {
  if (/每天最多访问|次\/天|per day|daily quota/i.test(msg)) {
    return new TushareError(
      api,
      'quota',
      `tushare ${api}: the daily quota of this interface is used up (${msg}); rerun after midnight Shanghai time, when it starts again`,
    )
  }
  if (/每分钟最多访问|最多访问该接口\d+次\/分钟|次\/分钟|rate limit/i.test(msg)) {
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

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]'])

/** True for a URL whose host is this machine (plain http there carries the token nowhere). */
export function isLoopback(url: string): boolean {
  const host = new URL(url).hostname
  return LOOPBACK.has(host) || host.startsWith('127.')
}

function specOf(api: string): InterfaceSpec {
  const spec = INTERFACES[api]
  if (!spec) throw new Error(`tushare ${api}: no column list in interfaces.ts; add the interface there first`)
  return spec
}

/** The body read as text, refused past `max` bytes (the stream is cancelled, not drained). */
async function readCapped(api: string, response: Response, max: number): Promise<string> {
  const length = Number(response.headers.get('content-length') ?? Number.NaN)
  if (length > max) {
    await response.body?.cancel()
    throw oversize(api, max)
  }
  if (!response.body) return ''
  const chunks: Uint8Array[] = []
  let total = 0
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    total += chunk.byteLength
    if (total > max) throw oversize(api, max)
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}

const oversize = (api: string, max: number) =>
  new TushareError(
    api,
    'answer',
    `tushare ${api}: the answer is larger than ${max} bytes (TUSHARE_MAX_ANSWER_BYTES): refused; raise the setting if a real answer needs it`,
  )

/** Refuses rows outside what was asked (another day, code, announcement date, period) and rows that repeat a key. */
export function checkRows(api: string, params: Record<string, string>, table: TushareTable): void {
  const at = (name: string) => table.fields.indexOf(name)
  const refuse = (row: readonly unknown[], why: string) => {
    const shown = table.fields
      .map((f, i) => `${f}=${String(row[i])}`)
      .slice(0, 4)
      .join(' ')
    throw new TushareError(api, 'answer', `tushare ${api}: a row ${why} (${shown}): the answer is refused`)
  }
  const checks: ((row: readonly unknown[]) => void)[] = []
  for (const [param, column] of Object.entries(ROW_MATCHES)) {
    const i = at(column)
    const wanted = params[param]
    if (wanted === undefined || i < 0) continue
    checks.push((row) => {
      if (String(row[i]) !== wanted) refuse(row, `has ${column} ${String(row[i])}, not the ${wanted} asked for`)
    })
  }
  const code = at('ts_code')
  if (params.ts_code !== undefined && code >= 0) {
    const codes = new Set(params.ts_code.split(','))
    checks.push((row) => {
      if (!codes.has(String(row[code]))) refuse(row, `is of ${String(row[code])}, a code not asked for`)
    })
  }
  const date = at(api === 'trade_cal' ? 'cal_date' : 'trade_date')
  if (params.start_date !== undefined && params.end_date !== undefined && date >= 0) {
    const [start, end] = [params.start_date, params.end_date]
    checks.push((row) => {
      const d = String(row[date])
      if (d < start || d > end) refuse(row, `is dated ${d}, outside ${start}..${end} asked for`)
    })
  }
  const keyColumns = specOf(api).key.map(at)
  const seen = keyColumns.length > 0 && keyColumns.every((i) => i >= 0) ? new Set<string>() : undefined
  for (const row of table.items) {
    for (const check of checks) check(row)
    if (seen) {
      const key = keyColumns.map((i) => String(row[i])).join('|')
      if (seen.has(key)) refuse(row, `repeats the key (${specOf(api).key.join(', ')}) of an earlier row`)
      seen.add(key)
    }
  }
}

export function createTushareClient(options: TushareClientOptions): TushareClient {
  const calls = new Map<string, number>()
  const lastCall = new Map<string, number>()
  const deadline = options.deadline ?? ((ms: number) => AbortSignal.timeout(ms))
  if (new URL(options.url).protocol === 'http:' && !isLoopback(options.url)) {
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

  async function call(api: string, params: Record<string, string | number>, signal: AbortSignal): Promise<Answer> {
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
    try {
      const response = await options.fetch(options.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ api_name: api, token: options.token, params, fields: specOf(api).fields.join(',') }),
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
      const text = await readCapped(api, response, options.maxAnswerBytes)
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

  /** One call's answer, rate limits waited out; other failures thrown. */
  async function answered(
    api: string,
    params: Record<string, string | number>,
    signal: AbortSignal,
  ): Promise<{ fields: string[]; items: unknown[][]; has_more?: boolean }> {
    for (let retries = 0; ; retries++) {
      const answer = await call(api, params, signal)
      if (answer.code === 0) return answer.data ?? { fields: [], items: [] }
      const failure = classify(api, answer.code, answer.msg ?? '')
      if (failure.kind !== 'rate' || retries >= RATE_RETRIES) throw failure
      options.log.warn({ api, retry: retries + 1 }, `tushare ${api}: rate limit, waiting ${RATE_WAIT_MS / 1000} s`)
      await options.sleep(RATE_WAIT_MS, signal)
    }
  }

  async function once(api: string, params: Record<string, string>, signal: AbortSignal): Promise<TushareAnswer> {
    const spec = specOf(api)
    const data = await answered(api, params, signal)
    const table = { fields: data.fields, items: data.items }
    checkRows(api, params, table)
    return { ...table, cut: data.has_more === true || data.items.length >= spec.rowLimit }
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
      let fields: readonly string[] = []
      const items: (readonly unknown[])[] = []
      for (let page = 0; ; page++) {
        if (page >= options.maxPages) {
          throw new TushareError(
            api,
            'answer',
            `tushare ${api}: still more rows after ${options.maxPages} pages (TUSHARE_MAX_PAGES): refused; raise the setting if a real answer needs it`,
          )
        }
        const data = await answered(api, { ...params, limit: spec.rowLimit, offset: items.length }, signal)
        fields = data.fields
        for (const item of data.items) items.push(item)
        if (!data.has_more || data.items.length === 0) break
      }
      const table = { fields, items }
      checkRows(api, params, table)
      return table
    },
  }
}
