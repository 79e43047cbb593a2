import type pg from 'pg'
import { withChainLock } from '../storage/chain-lock.js'
import { type ChainStep, type DateArgs, type JobResult, throwIfAborted } from './job.js'

export type StepName = 'sync' | 'build' | 'plan' | 'push-pool' | 'outcomes'

export class ChainStepError extends Error {
  override name = 'ChainStepError'
  readonly step: StepName
  constructor(step: StepName, cause: unknown) {
    super(`${step} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
    this.step = step
  }
}

export interface ChainDeps {
  readonly pool: pg.Pool
  readonly latestBarDate: () => Promise<string | undefined>
  readonly steps: Readonly<Record<Exclude<StepName, 'sync'>, ChainStep>>
  /** With TUSHARE_TOKEN set: the days since the store's last complete day from tushare, before anything else. */
  readonly sync?: ChainStep
}

export interface ChainOptions {
  /** Refuse instead of waiting when another process runs the chain for the date. */
  readonly refuseIfBusy?: boolean
  /** Asked between steps: true stops the chain at the boundary (service shutdown). */
  readonly draining?: () => boolean
  readonly onStep?: (step: StepName, event: 'start' | 'ok', detail?: string) => void | Promise<void>
}

// outcomes last: the pool reaches the PMS first; the track record is bookkeeping
const ORDER: readonly Exclude<StepName, 'sync'>[] = ['build', 'plan', 'push-pool', 'outcomes']

/** [sync,] build, then plan, then push-pool, then outcomes for one date under the date's advisory lock; stops at the first failure. */
export async function runChain(
  deps: ChainDeps,
  args: DateArgs,
  signal: AbortSignal,
  options: ChainOptions = {},
): Promise<JobResult> {
  const synced: string[] = []
  if (deps.sync) {
    throwIfAborted(signal)
    await options.onStep?.('sync', 'start')
    try {
      // through the chain's date when it names one, else through today
      const result = await deps.sync(args.date ? { date: args.date } : {}, signal)
      synced.push(result.summary)
      await options.onStep?.('sync', 'ok', result.summary)
    } catch (err) {
      throw new ChainStepError('sync', err)
    }
  }
  const date = args.date ?? (await deps.latestBarDate())
  if (!date)
    throw new ChainStepError(
      'build',
      new Error('no daily bars imported: run `stockplan import` or `stockplan demo` first'),
    )
  return withChainLock(deps.pool, date, options.refuseIfBusy ? 'try' : 'wait', signal, async () => {
    const summaries: string[] = [...synced]
    for (const step of ORDER) {
      throwIfAborted(signal)
      if (options.draining?.()) throw new ChainStepError(step, new Error('service shutting down before this step'))
      await options.onStep?.(step, 'start')
      try {
        const result = await deps.steps[step]({ date }, signal)
        summaries.push(result.summary)
        await options.onStep?.(step, 'ok', result.summary)
      } catch (err) {
        throw new ChainStepError(step, err)
      }
    }
    return { summary: summaries.join('; '), date }
  })
}
