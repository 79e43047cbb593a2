import { errorText } from '../errors.js'
import { JobAbortedError } from '../jobs/job.js'
import type { Logger } from '../logger.js'
import type { RunStore } from '../storage/run.repository.js'
import type { HandlerName, RunContext, RunHandler, RunLimits, XxlJobTiming } from './contract.js'
import type { JobSlots } from './job-slots.js'
import {
  cancellableDelay,
  EXECUTOR_STEP,
  failed,
  failureMessage,
  type LiveRun,
  type LiveRunSpec,
  newLiveRun,
  type Outcome,
  type Settled,
  type ShutdownState,
} from './live-run.js'
import type { Outbox } from './outbox.js'
import { capHandleMsg, HANDLE_SUCCESS, HANDLE_TIMEOUT, MSG } from './protocol.js'
import { createRunLogWriter, splitStep } from './run-log.js'

/** setTimeout's ceiling (about 24.8 days); a longer delay would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1

export interface RunLifecycleDeps {
  readonly runs: RunStore
  readonly slots: JobSlots<LiveRun>
  readonly outbox: Pick<Outbox, 'kick'>
  readonly handlers: Record<HandlerName, RunHandler>
  readonly log: Logger
  readonly now: () => Date
  readonly timing: Pick<XxlJobTiming, 'abortGraceMs'>
  readonly instanceId: string
  readonly shutdown: ShutdownState
  readonly reportFinished: (code: number) => void
  /** Unbounded when not given. */
  readonly limits?: RunLimits
}

interface Lifecycle extends RunLifecycleDeps {
  /** Background work (runs, closes of unstarted runs) the drain waits for. */
  readonly tracked: Set<Promise<void>>
  /** Results whose database write failed; retried on every maintenance tick (the run keeps its heartbeat). */
  readonly unsaved: Map<number, { live: LiveRun; outcome: Outcome }>
}

function track(c: Lifecycle, work: Promise<void>): void {
  const guarded = work.catch((err: unknown) =>
    c.log.error({ err: { message: errorText(err) } }, 'xxl-job: background work failed'),
  )
  c.tracked.add(guarded)
  void guarded.finally(() => c.tracked.delete(guarded))
}

function create(c: Lifecycle, spec: LiveRunSpec): LiveRun {
  const writer = createRunLogWriter(c.runs, spec.logId, c.now, (err) =>
    c.log.warn({ logId: spec.logId, err: { message: errorText(err) } }, 'xxl-job: cannot append to the run log'),
  )
  return newLiveRun(spec, writer)
}

async function saveResult(c: Lifecycle, live: LiveRun, outcome: Outcome): Promise<void> {
  try {
    const result = { status: outcome.status, handleCode: outcome.code, handleMsg: outcome.msg }
    const saved = await c.runs.finish(live.logId, c.instanceId, result, live.step, c.now())
    c.unsaved.delete(live.logId)
    if (!saved)
      c.log.warn({ logId: live.logId }, 'xxl-job: the run had been closed by another executor; its result is dropped')
    else c.outbox.kick()
  } catch (err) {
    c.unsaved.set(live.logId, { live, outcome })
    c.log.error(
      { logId: live.logId, err: { message: errorText(err) } },
      'xxl-job: cannot store the run result; will retry',
    )
  }
}

async function retryUnsaved(c: Lifecycle): Promise<void> {
  for (const { live, outcome } of [...c.unsaved.values()]) await saveResult(c, live, outcome)
}

/** Writes the end lines, stores the result with its callback, frees the slot and starts the job's next run. */
async function finalize(c: Lifecycle, live: LiveRun, outcome: Outcome): Promise<void> {
  void live.writer.write(EXECUTOR_STEP, '----------- xxl-job job execute end(finish) -----------')
  void live.writer.write(EXECUTOR_STEP, `----------- Result: handleCode=${outcome.code}, handleMsg = ${outcome.msg}`)
  await live.writer.flush()
  live.writer.close()
  await saveResult(c, live, outcome)
  c.slots.release(live.jobId, live)
  live.markDone()
  c.reportFinished(outcome.code)
  const level = outcome.code === HANDLE_SUCCESS ? 'info' : 'warn'
  c.log[level](
    { logId: live.logId, jobId: live.jobId, handler: live.handler, handleCode: outcome.code, handleMsg: outcome.msg },
    'xxl-job: run finished',
  )
  pump(c, live.jobId)
}

/** Closes a run that never started (killed in the queue, invalid params, shutdown), in the background. */
function closeUnstarted(c: Lifecycle, live: LiveRun, outcome: Outcome, lines: readonly string[]): void {
  for (const line of lines) void live.writer.write(EXECUTOR_STEP, line)
  track(c, finalize(c, live, outcome))
}

function stopRun(live: LiveRun, outcome: Outcome, reason: string): void {
  if (live.stop) return
  live.stop = outcome
  void live.writer.write(EXECUTOR_STEP, `----------- JobThread toStop, stopReason:${reason}`)
  live.controller.abort(new JobAbortedError(reason))
  live.onStop?.()
}

function contextOf(c: Lifecycle, live: LiveRun): RunContext {
  return {
    signal: live.controller.signal,
    log: (line: string) => {
      const { step, text } = splitStep(line)
      if (step !== undefined && step !== EXECUTOR_STEP) live.step = step
      return live.writer.write(step ?? live.step, text)
    },
    refuseIfBusy: live.strategy === 'DISCARD_LATER',
    draining: () => {
      if (c.shutdown.closing) live.drainSeen = true
      return c.shutdown.closing
    },
  }
}

/** Settles when the handler settles, or `abortGraceMs` after the run was told to stop if it ignores that. */
function graceAfterStop(c: Lifecycle, live: LiveRun): { over: Promise<Settled>; cancel: () => void } {
  let grace: ReturnType<typeof cancellableDelay> | undefined
  const over = new Promise<Settled>((resolve) => {
    live.onStop = () => {
      grace = cancellableDelay(c.timing.abortGraceMs)
      void grace.promise.then(() => {
        c.log.warn(
          { logId: live.logId, handler: live.handler },
          'xxl-job: the handler ignored its abort; closing the run anyway',
        )
        void live.writer.write(
          EXECUTOR_STEP,
          `----------- the handler did not stop within ${c.timing.abortGraceMs} ms of the abort`,
        )
        resolve({ ok: false, error: new JobAbortedError('the handler did not stop') })
      })
    }
    if (live.stop) live.onStop()
  })
  return {
    over,
    cancel: () => {
      grace?.cancel()
      live.onStop = undefined
    },
  }
}

async function invokeHandler(c: Lifecycle, live: LiveRun): Promise<Settled> {
  const handlerDone: Promise<Settled> = Promise.resolve()
    .then(() => c.handlers[live.handler](live.args, contextOf(c, live)))
    .then(
      (result): Settled => ({ ok: true, summary: typeof result?.summary === 'string' ? result.summary : undefined }),
      (error: unknown): Settled => ({ ok: false, error }),
    )
  const grace = graceAfterStop(c, live)
  try {
    return await Promise.race([handlerDone, grace.over])
  } finally {
    grace.cancel()
  }
}

function outcomeOf(c: Lifecycle, live: LiveRun, settled: Settled): Outcome {
  if (live.stop) return live.stop
  if (settled.ok) {
    return settled.summary === undefined
      ? failed(MSG.resultLost)
      : { status: 'succeeded', code: HANDLE_SUCCESS, msg: capHandleMsg(settled.summary) }
  }
  if (live.drainSeen || (c.shutdown.closing && settled.error instanceof JobAbortedError))
    return failed(MSG.shuttingDown)
  return failed(failureMessage(live.step, settled.error))
}

function startTimeout(live: LiveRun): NodeJS.Timeout | undefined {
  if (live.timeoutS <= 0) return undefined
  const outcome: Outcome = { status: 'timeout', code: HANDLE_TIMEOUT, msg: MSG.timeout }
  return setTimeout(
    () => stopRun(live, outcome, `job execute timeout (${live.timeoutS} s)`),
    Math.min(live.timeoutS * 1000, MAX_TIMER_MS),
  )
}

async function execute(c: Lifecycle, live: LiveRun): Promise<void> {
  try {
    await c.runs.markRunning(live.logId, c.instanceId, c.now())
  } catch (err) {
    c.log.warn({ logId: live.logId, err: { message: errorText(err) } }, 'xxl-job: cannot mark the run running')
  }
  void live.writer.write(EXECUTOR_STEP, '----------- xxl-job job execute start -----------')
  void live.writer.write(EXECUTOR_STEP, `----------- Param:${live.params}`)
  const timeout = startTimeout(live)
  let settled: Settled
  try {
    settled = await invokeHandler(c, live)
  } finally {
    clearTimeout(timeout)
  }
  await finalize(c, live, outcomeOf(c, live, settled))
}

/**
 * Starts queued runs while children are free: the job's own next run when unbounded, else the longest-waiting
 * run of any idle job up to `maxRunning` at once (never while shutting down).
 */
function pump(c: Lifecycle, jobId: number): void {
  if (c.shutdown.closing) return
  if (c.limits === undefined) {
    const next = c.slots.next(jobId)
    if (next) track(c, execute(c, next))
    return
  }
  while (c.slots.counts().running < c.limits.maxRunning) {
    const next = c.slots.nextReady()
    if (!next) return
    track(c, execute(c, next))
  }
}

/** Whether a run of `jobId` admitted now would go over the limits: it would wait, and the waiting room is full. */
function overLimits(c: Lifecycle, jobId: number): { running: number; queued: number } | undefined {
  if (c.limits === undefined) return undefined
  const counts = c.slots.counts()
  const wouldWait = c.slots.busy(jobId) || counts.running >= c.limits.maxRunning
  return wouldWait && counts.queued >= c.limits.maxQueued ? counts : undefined
}

/** Runs this process still answers for: their heartbeat is kept. */
function liveIds(c: Lifecycle): Set<number> {
  return new Set([...c.slots.allRunning(), ...c.slots.allQueued()].map((r) => r.logId).concat([...c.unsaved.keys()]))
}

/** Resolves once every background run and close has settled, including those started meanwhile. */
async function settleAll(c: Lifecycle): Promise<void> {
  while (c.tracked.size > 0) await Promise.all([...c.tracked])
}

/**
 * One run from start to stored result: start it when its slot frees, give the handler its context, stop it on
 * kill/cover/timeout, store the result (kept and retried when the database cannot take it), start the next.
 */
export function createRunLifecycle(deps: RunLifecycleDeps) {
  const c: Lifecycle = { ...deps, tracked: new Set(), unsaved: new Map() }
  return {
    create: (spec: LiveRunSpec) => create(c, spec),
    pump: (jobId: number) => pump(c, jobId),
    overLimits: (jobId: number) => overLimits(c, jobId),
    stopRun: (live: LiveRun, outcome: Outcome, reason: string) => stopRun(live, outcome, reason),
    closeUnstarted: (live: LiveRun, outcome: Outcome, lines: readonly string[]) =>
      closeUnstarted(c, live, outcome, lines),
    retryUnsaved: () => retryUnsaved(c),
    liveIds: () => liveIds(c),
    settleAll: () => settleAll(c),
  }
}

export type RunLifecycle = ReturnType<typeof createRunLifecycle>
