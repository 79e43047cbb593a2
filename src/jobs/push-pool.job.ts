import { DEFAULT_SIZES, selectRows } from '../domain/plan-assembly.js'
import type { FullPlan, PlanSizes } from '../domain/plan-types.js'
import { errorText } from '../errors.js'
import type { Logger } from '../logger.js'
import { redirectRefusal } from '../redirects.js'
import type { PlanFiles } from '../storage/plan-files.js'
import { type DateArgs, type JobResult, throwIfAborted } from './job.js'

export interface PushPoolDeps {
  readonly latestDate: () => Promise<string | undefined>
  readonly getFull: (date: string) => Promise<FullPlan>
  readonly files: PlanFiles
  readonly log: Logger
  readonly poolTop: number
  readonly poolMax: number
  readonly pushUrl: string | undefined
  readonly fetch?: typeof fetch
  /** Waits between attempts, in ms; the last entry repeats. */
  readonly retryDelaysMs?: readonly number[]
  readonly attempts?: number
}

export interface PoolItem {
  readonly code: string
  readonly name: string
  readonly decision: 'main' | 'observe'
  readonly card_rank: number
  readonly score: number
  readonly theme: string | null
}

export interface PoolPayload {
  readonly date: string
  readonly plan_version: string
  readonly generated_at: string
  readonly idempotency_key: string
  readonly pool_top: number
  readonly pool_max: number
  /** The plan cut the labels come from: the one `GET /plan` serves by default and `/plan/verdict` judges by. */
  readonly cut: PlanSizes
  readonly main_count: number
  readonly observe_count: number
  readonly codes: string[]
  readonly items: PoolItem[]
}

export class PushPoolError extends Error {
  override name = 'PushPoolError'
}

/**
 * The pool is a subset of the default plan cut, labelled as `/plan/verdict` labels it: the cut's `main` rows
 * up to POOL_TOP (`decision: main`, their card rank), then its `observe` rows (`decision: observe`), the whole
 * at most POOL_MAX codes. A code the verdicts call `reject` or `absent` is never in the pool.
 */
export function buildPool(full: FullPlan, poolTop: number, poolMax: number): PoolPayload {
  const selection = selectRows(full, DEFAULT_SIZES)
  const main = selection.main.slice(0, poolTop).map((r, i) => item(r, 'main', i + 1))
  const observe = selection.observe.map((r, i) => item(r, 'observe', i + 1))
  const items = [...main, ...observe].slice(0, poolMax)
  return {
    date: full.date,
    plan_version: full.plan_version,
    generated_at: full.generated_at,
    idempotency_key: `${full.date}:${full.plan_version}`,
    pool_top: poolTop,
    pool_max: poolMax,
    cut: DEFAULT_SIZES,
    main_count: items.filter((i) => i.decision === 'main').length,
    observe_count: items.filter((i) => i.decision === 'observe').length,
    codes: items.map((i) => i.code),
    items,
  }
}

function item(row: FullPlan['rows'][number], decision: 'main' | 'observe', cardRank: number): PoolItem {
  return { code: row.code, name: row.name, decision, card_rank: cardRank, score: row.score, theme: row.theme }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms)
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer)
        reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'))
      },
      { once: true },
    )
  })
}

/** The push URL without its userinfo, which becomes a Basic `authorization` header (fetch refuses credentials in a URL). */
function pushTarget(pushUrl: string): { url: string; headers: Record<string, string> } {
  const target = new URL(pushUrl)
  if (target.username === '' && target.password === '') return { url: pushUrl, headers: {} }
  const credentials = `${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`
  target.username = ''
  target.password = ''
  return {
    url: target.toString(),
    headers: { authorization: `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}` },
  }
}

async function push(deps: PushPoolDeps, pushUrl: string, payload: PoolPayload, signal: AbortSignal): Promise<number> {
  const { url, headers } = pushTarget(pushUrl)
  const doFetch = deps.fetch ?? fetch
  const delays = deps.retryDelaysMs ?? [1000, 3000, 9000]
  const attempts = deps.attempts ?? 4
  let lastError = ''
  for (let attempt = 1; attempt <= attempts; attempt++) {
    throwIfAborted(signal)
    try {
      const res = await doFetch(url, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': payload.idempotency_key },
        body: JSON.stringify(payload),
        // the pool and the credentials go to the configured address only
        redirect: 'manual',
        signal: AbortSignal.any([signal, AbortSignal.timeout(10_000)]),
      })
      const redirect = redirectRefusal(res, url)
      if (redirect !== undefined) {
        lastError = redirect
        break
      }
      if (res.ok) return attempt
      lastError = `HTTP ${res.status}`
      // a client error other than timeout/rate limit will not get better by retrying
      if (res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429) break
    } catch (err) {
      if (signal.aborted) throw err
      lastError = errorText(err)
    }
    deps.log.warn({ attempt, error: lastError }, 'pool push failed, retrying')
    if (attempt < attempts) await sleep(delays[Math.min(attempt - 1, delays.length - 1)]!, signal)
  }
  throw new PushPoolError(
    `push to ${new URL(url).origin} failed: ${lastError}; the pool file is written, rerun push-pool once the PMS answers`,
  )
}

/** Writes `pool/<T>.json` and, when POOL_PUSH_URL is set, POSTs it with retries and an idempotency key. */
export async function runPushPool(deps: PushPoolDeps, args: DateArgs, signal: AbortSignal): Promise<JobResult> {
  const date = args.date ?? (await deps.latestDate())
  if (!date) throw new PushPoolError('the tier table is empty: run `stockplan build` and `stockplan plan` first')
  const payload = buildPool(await deps.getFull(date), deps.poolTop, deps.poolMax)
  const file = await deps.files.writePool(date, `${JSON.stringify(payload, null, 2)}\n`)
  throwIfAborted(signal)
  if (!deps.pushUrl) {
    return {
      summary: `push-pool ${date}: ${payload.codes.length} codes (${payload.main_count} main, ${payload.observe_count} observe) written to ${file} (no POOL_PUSH_URL)`,
      date,
      file,
      pushed: false,
    }
  }
  const attempts = await push(deps, deps.pushUrl, payload, signal)
  deps.log.info({ date, codes: payload.codes.length, attempts }, 'pool pushed')
  return {
    summary: `push-pool ${date}: ${payload.codes.length} codes pushed (attempt ${attempts})`,
    date,
    file,
    pushed: true,
    attempts,
  }
}
