import { errorText } from '../errors.js'
import type { DateArgs } from '../jobs/job.js'
import type { RunResult } from '../storage/run.repository.js'
import type { HandlerName } from './contract.js'
import { type BlockStrategy, capHandleMsg, HANDLE_FAIL } from './protocol.js'
import type { RunLogWriter } from './run-log.js'

/** A run's in-memory state while this process answers for it, and the small values every part shares. */

/** The step a handler's untagged log lines and failures are attributed to until it logs a `[step] ...` line. */
export const DEFAULT_STEP: Record<HandlerName, string> = {
  dailyPlanChain: 'chain',
  sync: 'sync',
  build: 'build',
  plan: 'plan',
  pushPool: 'push-pool',
}

/** The step of the executor's own run-log lines (start, end, stop, callback). */
export const EXECUTOR_STEP = 'executor'

export interface Outcome {
  readonly status: RunResult['status']
  readonly code: number
  readonly msg: string
}

export type Settled =
  | { readonly ok: true; readonly summary: string | undefined }
  | { readonly ok: false; readonly error: unknown }

export interface LiveRun {
  readonly logId: number
  readonly jobId: number
  readonly handler: HandlerName
  readonly params: string
  readonly args: DateArgs
  readonly strategy: BlockStrategy
  readonly timeoutS: number
  readonly controller: AbortController
  readonly writer: RunLogWriter
  readonly done: Promise<void>
  readonly markDone: () => void
  step: string
  /** The handler asked `draining()` and got true: a failure after that is the shutdown's doing. */
  drainSeen: boolean
  /** Set when the run is told to stop; it decides the result whatever the handler does next. */
  stop: Outcome | undefined
  onStop: (() => void) | undefined
}

export type LiveRunSpec = Omit<
  LiveRun,
  'controller' | 'writer' | 'done' | 'markDone' | 'step' | 'drainSeen' | 'stop' | 'onStop'
>

export function newLiveRun(spec: LiveRunSpec, writer: RunLogWriter): LiveRun {
  let markDone!: () => void
  const done = new Promise<void>((resolve) => {
    markDone = resolve
  })
  return {
    ...spec,
    controller: new AbortController(),
    writer,
    done,
    markDone,
    step: DEFAULT_STEP[spec.handler],
    drainSeen: false,
    stop: undefined,
    onStop: undefined,
  }
}

export const killed = (msg: string): Outcome => ({ status: 'killed', code: HANDLE_FAIL, msg })
export const failed = (msg: string): Outcome => ({ status: 'failed', code: HANDLE_FAIL, msg })

/** `<step> failed: <error>`; a message that already says which step failed is kept as it is. */
export function failureMessage(step: string, err: unknown): string {
  const text = errorText(err)
  return capHandleMsg(/^[\w.-]+ failed: /.test(text) ? text : `${step} failed: ${text}`)
}

export function cancellableDelay(ms: number): { promise: Promise<void>; cancel: () => void } {
  let timer: NodeJS.Timeout | undefined
  const promise = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms)
  })
  return { promise, cancel: () => clearTimeout(timer) }
}

/** The executor's shared shutdown flag: set once by the drain, read by every part. */
export interface ShutdownState {
  closing: boolean
}
