import type pg from 'pg'
import type { Logger } from '../logger.js'
import { withChainLock } from '../storage/chain-lock.js'
import type { ReplayRunsRepository } from '../storage/replay-runs.repository.js'
import type { IsoDate } from '../storage/schema.js'
import { type ChainStep, type JobResult, throwIfAborted } from './job.js'
import type { Progress } from './progress.js'

export interface ReplayDeps {
  readonly pool: pg.Pool
  /** Trading days up to a date, ascending (the chain's own calendar). */
  readonly calendar: (to: IsoDate) => Promise<IsoDate[]>
  /** The chain's own step functions; push-pool is left out (a past pool is never pushed to the PMS). */
  readonly steps: Readonly<{ build: ChainStep; plan: ChainStep; outcomes: ChainStep }>
  /** Waits for the writes the steps left running behind them (none when the steps wait for their own). */
  readonly flushWrites?: () => Promise<void>
  readonly runs: ReplayRunsRepository
  readonly progress: Progress
  readonly log: Logger
}

export interface ReplayArgs {
  readonly from: IsoDate
  readonly to: IsoDate
  /** Start again from `from` even when an earlier replay of the same range got part of the way. */
  readonly restart?: boolean
}

export interface ReplayResult extends JobResult {
  readonly replayed: number
  readonly resumedAfter: IsoDate | null
}

export class ReplayInputError extends Error {
  override name = 'ReplayInputError'
}

const STEPS = ['build', 'plan', 'outcomes'] as const

/**
 * Rebuilds tier scores, plans, daily rows (logic states) and outcomes for every trading day from `from` to `to`,
 * oldest first, as the nightly chain would have on each day. Each day runs under the chain's per-date lock and is
 * recorded when done, so a killed replay resumes with the first unfinished day (a day's steps replace the day).
 */
export async function runReplay(deps: ReplayDeps, args: ReplayArgs, signal: AbortSignal): Promise<ReplayResult> {
  if (args.from > args.to) throw new ReplayInputError(`--from ${args.from} is after --to ${args.to}`)
  const dates = (await deps.calendar(args.to)).filter((d) => d >= args.from)
  if (dates.length === 0)
    throw new ReplayInputError(`no trading days with bars from ${args.from} to ${args.to}: import that data first`)
  const doneThrough = args.restart ? null : await deps.runs.doneThrough(args.from, args.to)
  if (args.restart) await deps.runs.markDone(args.from, args.to, null)
  const todo = dates.filter((d) => doneThrough === null || d > doneThrough)
  deps.progress.start(`replay ${args.from}..${args.to}`, dates.length, 'days', dates.length - todo.length)
  // where a replay's time goes, step by step: the first thing to know before making it faster
  const stepMs: Record<(typeof STEPS)[number] | 'writesBehind' | 'bookkeeping', number> = {
    build: 0,
    plan: 0,
    outcomes: 0,
    writesBehind: 0,
    bookkeeping: 0,
  }
  for (const date of todo) {
    throwIfAborted(signal)
    const started = performance.now()
    await withChainLock(deps.pool, date, 'wait', signal, async () => {
      try {
        for (const step of STEPS) {
          throwIfAborted(signal)
          const stepStarted = performance.now()
          await deps.steps[step]({ date }, signal)
          const ended = performance.now()
          stepMs[step] += ended - stepStarted
          stepMs.bookkeeping -= ended - stepStarted
        }
      } catch (error) {
        // the day's writes still running settle before the lock goes: a failed day leaves no write in flight
        await deps.flushWrites?.().catch(() => undefined)
        throw error
      }
      const flushStarted = performance.now()
      await deps.flushWrites?.()
      stepMs.writesBehind += performance.now() - flushStarted
      stepMs.bookkeeping -= performance.now() - flushStarted
    })
    await deps.runs.markDone(args.from, args.to, date)
    stepMs.bookkeeping += performance.now() - started
    deps.progress.tick()
  }
  const summary = `replay ${dates[0]}..${dates.at(-1)}: ${todo.length} days replayed${
    todo.length < dates.length ? ` (resumed after ${doneThrough})` : ''
  }`
  deps.progress.done(`${todo.length} days replayed`)
  const stepSeconds = Object.fromEntries(Object.entries(stepMs).map(([step, ms]) => [step, Math.round(ms) / 1000]))
  deps.log.info(
    { from: args.from, to: args.to, replayed: todo.length, resumedAfter: doneThrough, stepSeconds },
    'replay finished',
  )
  return {
    summary,
    date: dates.at(-1)!,
    replayed: todo.length,
    resumedAfter: todo.length < dates.length ? doneThrough : null,
  }
}
