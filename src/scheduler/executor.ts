import { randomBytes } from 'node:crypto'
import os from 'node:os'
import { errorText } from '../errors.js'
import { type DateArgs, JobAbortedError } from '../jobs/job.js'
import { createAdminClient } from './admin-client.js'
import {
  DEFAULT_TIMING,
  HANDLER_NAMES,
  type HandlerName,
  type RunContext,
  type XxlJobDeps,
  type XxlJobExecutor,
  type XxlJobTiming,
} from './contract.js'
import { createJobSlots } from './job-slots.js'
import { createOutbox } from './outbox.js'
import { parseExecutorParams } from './params.js'
import { createXxlJobPlugin, type ExecutorOps } from './plugin.js'
import {
  type BlockStrategy,
  capHandleMsg,
  type ExecutorReply,
  fail,
  HANDLE_FAIL,
  HANDLE_SUCCESS,
  HANDLE_TIMEOUT,
  MSG,
  ok,
  okWith,
  parseBody,
  readJobId,
  readLogParam,
  readTriggerParam,
  resolveStrategy,
} from './protocol.js'
import { createRegistration } from './registration.js'
import { createRunLogWriter, type RunLogWriter, splitStep, textLines, toLogResult } from './run-log.js'
import { createRunStore, type RunResult } from './run-store.js'

/** The step a handler's untagged log lines and failures are attributed to until it logs a `[step] ...` line. */
const DEFAULT_STEP: Record<HandlerName, string> = {
  dailyPlanChain: 'chain',
  build: 'build',
  plan: 'plan',
  pushPool: 'push-pool',
}

interface Outcome {
  readonly status: RunResult['status']
  readonly code: number
  readonly msg: string
}

type Settled =
  | { readonly ok: true; readonly summary: string | undefined }
  | { readonly ok: false; readonly error: unknown }

interface LiveRun {
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

const LOG_PAGE_LINES = 1000
/** setTimeout's ceiling (about 24.8 days); a longer delay would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1
const EXECUTOR_STEP = 'executor'

const killed = (msg: string): Outcome => ({ status: 'killed', code: HANDLE_FAIL, msg })
const failed = (msg: string): Outcome => ({ status: 'failed', code: HANDLE_FAIL, msg })

function isHandlerName(name: string): name is HandlerName {
  return (HANDLER_NAMES as readonly string[]).includes(name)
}

/** `<step> failed: <error>`; a message that already says which step failed is kept as it is. */
function failureMessage(step: string, err: unknown): string {
  const text = errorText(err)
  return capHandleMsg(/^[\w.-]+ failed: /.test(text) ? text : `${step} failed: ${text}`)
}

function sleep(ms: number): { promise: Promise<void>; cancel: () => void } {
  let timer: NodeJS.Timeout | undefined
  const promise = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms)
  })
  return { promise, cancel: () => clearTimeout(timer) }
}

export function createXxlJobExecutor(deps: XxlJobDeps): XxlJobExecutor {
  const { db, log, config, handlers } = deps
  const now = deps.now ?? (() => new Date())
  const timing: XxlJobTiming = { ...DEFAULT_TIMING, ...deps.timing }
  const instanceId = deps.instanceId ?? `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`
  const runs = createRunStore(db)
  const slots = createJobSlots<LiveRun>()
  const admin = createAdminClient({
    addresses: config.adminAddresses,
    accessToken: config.accessToken,
    timeoutMs: timing.adminTimeoutMs,
    fetch: deps.fetch ?? globalThis.fetch,
  })
  const outbox = createOutbox({
    db,
    log,
    admin,
    now,
    retryDelaysMs: timing.retryDelaysMs.length > 0 ? timing.retryDelaysMs : DEFAULT_TIMING.retryDelaysMs,
    pollMs: timing.outboxPollMs,
    leaseMs: timing.outboxLeaseMs,
    appendLines: (logId, texts) => runs.appendLines(logId, EXECUTOR_STEP, texts, now()),
  })
  const registration = createRegistration({
    admin,
    log,
    appName: config.appName,
    executorAddress: config.executorAddress,
    intervalMs: timing.registryIntervalMs,
  })

  let started = false
  let closing = false
  let closed: Promise<void> | undefined
  let maintenanceTimer: NodeJS.Timeout | undefined
  let maintenance: Promise<void> | undefined
  let lastPending = 0
  /** Background work (runs, closes of unstarted runs) close() waits for. */
  const tracked = new Set<Promise<void>>()
  /** Results whose database write failed; retried on every maintenance tick (the run keeps its heartbeat). */
  const unsaved = new Map<number, { live: LiveRun; outcome: Outcome }>()

  function track(work: Promise<void>): void {
    const guarded = work.catch((err: unknown) =>
      log.error({ err: { message: errorText(err) } }, 'xxl-job: background work failed'),
    )
    tracked.add(guarded)
    void guarded.finally(() => tracked.delete(guarded))
  }

  function reportFinished(code: number): void {
    try {
      deps.onRunFinished?.(code)
    } catch (err) {
      log.warn({ err: { message: errorText(err) } }, 'xxl-job: onRunFinished threw')
    }
  }

  function newLiveRun(
    spec: Omit<LiveRun, 'controller' | 'writer' | 'done' | 'markDone' | 'step' | 'drainSeen' | 'stop' | 'onStop'>,
  ): LiveRun {
    let markDone!: () => void
    const done = new Promise<void>((resolve) => {
      markDone = resolve
    })
    const writer = createRunLogWriter(runs, spec.logId, now, (err) =>
      log.warn({ logId: spec.logId, err: { message: errorText(err) } }, 'xxl-job: cannot append to the run log'),
    )
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

  async function saveResult(live: LiveRun, outcome: Outcome): Promise<void> {
    try {
      const result = { status: outcome.status, handleCode: outcome.code, handleMsg: outcome.msg }
      const saved = await runs.finish(live.logId, instanceId, result, live.step, now())
      unsaved.delete(live.logId)
      if (!saved)
        log.warn({ logId: live.logId }, 'xxl-job: the run had been closed by another executor; its result is dropped')
      else outbox.kick()
    } catch (err) {
      unsaved.set(live.logId, { live, outcome })
      log.error(
        { logId: live.logId, err: { message: errorText(err) } },
        'xxl-job: cannot store the run result; will retry',
      )
    }
  }

  /** Writes the end lines, stores the result with its callback, frees the slot and starts the job's next run. */
  async function finalize(live: LiveRun, outcome: Outcome): Promise<void> {
    void live.writer.write(EXECUTOR_STEP, '----------- xxl-job job execute end(finish) -----------')
    void live.writer.write(EXECUTOR_STEP, `----------- Result: handleCode=${outcome.code}, handleMsg = ${outcome.msg}`)
    await live.writer.flush()
    live.writer.close()
    await saveResult(live, outcome)
    slots.release(live.jobId, live)
    live.markDone()
    reportFinished(outcome.code)
    const level = outcome.code === HANDLE_SUCCESS ? 'info' : 'warn'
    log[level](
      { logId: live.logId, jobId: live.jobId, handler: live.handler, handleCode: outcome.code, handleMsg: outcome.msg },
      'xxl-job: run finished',
    )
    pump(live.jobId)
  }

  /** Closes a run that never started (killed in the queue, invalid params, shutdown). */
  async function closeUnstarted(live: LiveRun, outcome: Outcome, lines: readonly string[]): Promise<void> {
    for (const line of lines) void live.writer.write(EXECUTOR_STEP, line)
    await finalize(live, outcome)
  }

  function stopRun(live: LiveRun, outcome: Outcome, reason: string): void {
    if (live.stop) return
    live.stop = outcome
    void live.writer.write(EXECUTOR_STEP, `----------- JobThread toStop, stopReason:${reason}`)
    live.controller.abort(new JobAbortedError(reason))
    live.onStop?.()
  }

  async function invokeHandler(live: LiveRun): Promise<Settled> {
    const ctx: RunContext = {
      signal: live.controller.signal,
      log: (line: string) => {
        const { step, text } = splitStep(line)
        if (step !== undefined && step !== EXECUTOR_STEP) live.step = step
        return live.writer.write(step ?? live.step, text)
      },
      refuseIfBusy: live.strategy === 'DISCARD_LATER',
      draining: () => {
        if (closing) live.drainSeen = true
        return closing
      },
    }
    const handlerDone: Promise<Settled> = Promise.resolve()
      .then(() => handlers[live.handler](live.args, ctx))
      .then(
        (result): Settled => ({ ok: true, summary: typeof result?.summary === 'string' ? result.summary : undefined }),
        (error: unknown): Settled => ({ ok: false, error }),
      )
    let grace: ReturnType<typeof sleep> | undefined
    const graceOver = new Promise<Settled>((resolve) => {
      live.onStop = () => {
        grace = sleep(timing.abortGraceMs)
        void grace.promise.then(() => {
          log.warn(
            { logId: live.logId, handler: live.handler },
            'xxl-job: the handler ignored its abort; closing the run anyway',
          )
          void live.writer.write(
            EXECUTOR_STEP,
            `----------- the handler did not stop within ${timing.abortGraceMs} ms of the abort`,
          )
          resolve({ ok: false, error: new JobAbortedError('the handler did not stop') })
        })
      }
      if (live.stop) live.onStop()
    })
    try {
      return await Promise.race([handlerDone, graceOver])
    } finally {
      grace?.cancel()
      live.onStop = undefined
    }
  }

  function outcomeOf(live: LiveRun, settled: Settled): Outcome {
    if (live.stop) return live.stop
    if (settled.ok) {
      return settled.summary === undefined
        ? failed(MSG.resultLost)
        : { status: 'succeeded', code: HANDLE_SUCCESS, msg: capHandleMsg(settled.summary) }
    }
    if (live.drainSeen || (closing && settled.error instanceof JobAbortedError)) return failed(MSG.shuttingDown)
    return failed(failureMessage(live.step, settled.error))
  }

  async function execute(live: LiveRun): Promise<void> {
    try {
      await runs.markRunning(live.logId, instanceId, now())
    } catch (err) {
      log.warn({ logId: live.logId, err: { message: errorText(err) } }, 'xxl-job: cannot mark the run running')
    }
    void live.writer.write(EXECUTOR_STEP, '----------- xxl-job job execute start -----------')
    void live.writer.write(EXECUTOR_STEP, `----------- Param:${live.params}`)
    let timeout: NodeJS.Timeout | undefined
    if (live.timeoutS > 0) {
      timeout = setTimeout(
        () =>
          stopRun(
            live,
            { status: 'timeout', code: HANDLE_TIMEOUT, msg: MSG.timeout },
            `job execute timeout (${live.timeoutS} s)`,
          ),
        Math.min(live.timeoutS * 1000, MAX_TIMER_MS),
      )
    }
    let settled: Settled
    try {
      settled = await invokeHandler(live)
    } finally {
      clearTimeout(timeout)
    }
    await finalize(live, outcomeOf(live, settled))
  }

  function pump(jobId: number): void {
    if (closing) return
    const next = slots.next(jobId)
    if (next) track(execute(next))
  }

  // ---- the operations behind the routes -------------------------------------------------------------------

  async function run(body: unknown): Promise<ExecutorReply> {
    if (closing) return fail(MSG.shuttingDown)
    const parsed = parseBody(body)
    if (!parsed.ok) return fail(parsed.error)
    const read = readTriggerParam(parsed.value)
    if (!read.ok) return fail(read.msg)
    const t = read.value
    if (t.glueType !== 'BEAN') return fail(MSG.glueInvalid(t.glueType ?? 'null'))
    const handler = t.executorHandler
    if (!isHandlerName(handler)) return fail(MSG.handlerNotFound(handler))
    const strategy = resolveStrategy(t.executorBlockStrategy)
    const params = parseExecutorParams(t.executorParams)
    const inserted = await runs.insert({
      logId: t.logId,
      jobId: t.jobId,
      handler,
      params: t.executorParams,
      blockStrategy: t.executorBlockStrategy ?? strategy,
      timeoutS: t.executorTimeout,
      logDateTime: t.logDateTime ?? now().getTime(),
      ownerId: instanceId,
      ownerAddress: config.executorAddress,
      at: now(),
    })
    if (!inserted) return fail(MSG.repeatTrigger(t.logId))
    if (closing) {
      await runs.remove(t.logId)
      return fail(MSG.shuttingDown)
    }
    const live = newLiveRun({
      logId: t.logId,
      jobId: t.jobId,
      handler,
      params: t.executorParams,
      args: params.ok ? params.args : {},
      strategy,
      timeoutS: t.executorTimeout,
    })
    if (!params.ok) {
      log.warn(
        { logId: t.logId, jobId: t.jobId, handler, error: params.error },
        'xxl-job: run accepted with invalid params; failing it',
      )
      track(closeUnstarted(live, failed(params.error), [`----------- Param:${t.executorParams}`, params.error]))
      return ok()
    }
    const admission = slots.admit(t.jobId, live, strategy)
    if (admission.kind === 'discard') {
      await runs.remove(t.logId)
      log.info({ logId: t.logId, jobId: t.jobId }, 'xxl-job: trigger discarded (DISCARD_LATER, job busy)')
      return fail(MSG.discardLater)
    }
    const { running, queued } = admission.covered
    if (running) stopRun(running, killed(MSG.runningKilled(MSG.coverEarly)), MSG.coverEarly)
    for (const q of queued) {
      track(
        closeUnstarted(q, killed(MSG.queuedKilled(MSG.coverEarly)), [
          `----------- JobThread toStop, stopReason:${MSG.coverEarly}`,
        ]),
      )
    }
    log.info({ logId: t.logId, jobId: t.jobId, handler, strategy, args: live.args }, 'xxl-job: run accepted')
    pump(t.jobId)
    return ok()
  }

  async function kill(body: unknown): Promise<ExecutorReply> {
    const parsed = parseBody(body)
    if (!parsed.ok) return fail(parsed.error)
    const read = readJobId(parsed.value)
    if (!read.ok) return fail(read.msg)
    const jobId = read.value
    const running = slots.running(jobId)
    const queued = slots.takeQueue(jobId)
    if (!running && queued.length === 0) return ok(MSG.alreadyKilled)
    log.info({ jobId, running: running?.logId, queued: queued.map((q) => q.logId) }, 'xxl-job: kill')
    if (running) stopRun(running, killed(MSG.runningKilled(MSG.killReason)), MSG.killReason)
    for (const q of queued) {
      track(
        closeUnstarted(q, killed(MSG.queuedKilled(MSG.killReason)), [
          `----------- JobThread toStop, stopReason:${MSG.killReason}`,
        ]),
      )
    }
    return ok()
  }

  async function idleBeat(body: unknown): Promise<ExecutorReply> {
    const parsed = parseBody(body)
    if (!parsed.ok) return fail(parsed.error)
    const read = readJobId(parsed.value)
    if (!read.ok) return fail(read.msg)
    return slots.busy(read.value) ? fail(MSG.busy) : ok()
  }

  async function readLog(body: unknown): Promise<ExecutorReply> {
    const parsed = parseBody(body)
    if (!parsed.ok) return fail(parsed.error)
    const read = readLogParam(parsed.value)
    if (!read.ok) return fail(read.msg)
    const { logId, fromLineNum } = read.value
    return okWith(toLogResult(fromLineNum, await runs.readLog(logId, fromLineNum, LOG_PAGE_LINES)))
  }

  const ops: ExecutorOps = { beat: async () => ok(), idleBeat, run, kill, log: readLog }

  // ---- heartbeat, orphans, unsaved results ------------------------------------------------------------------

  async function sweepOrphans(atStart: boolean): Promise<void> {
    const at = now()
    // at start, runs left by a previous process at this same executor address are dead whatever their heartbeat
    const orphans = await runs.findOrphans(
      instanceId,
      new Date(at.getTime() - timing.staleRunAfterMs),
      atStart ? config.executorAddress : undefined,
    )
    const mine = liveIds()
    let closedAny = false
    for (const orphan of orphans) {
      if (orphan.ownerId === instanceId && mine.has(orphan.logId)) continue
      if (!(await runs.closeOrphan(orphan, MSG.restarted, at))) continue
      closedAny = true
      reportFinished(HANDLE_FAIL)
      log.warn({ logId: orphan.logId, owner: orphan.ownerId }, 'xxl-job: closed a run left by a dead executor')
      await runs
        .appendLines(
          orphan.logId,
          EXECUTOR_STEP,
          textLines(`----------- ${MSG.restarted} (its executor ${orphan.ownerId} stopped)`),
          at,
        )
        .catch((err: unknown) =>
          log.warn({ logId: orphan.logId, err: { message: errorText(err) } }, 'xxl-job: cannot append to the run log'),
        )
    }
    if (closedAny) outbox.kick()
  }

  /** Runs this process still answers for: their heartbeat is kept. */
  function liveIds(): Set<number> {
    return new Set([...slots.allRunning(), ...slots.allQueued()].map((r) => r.logId).concat([...unsaved.keys()]))
  }

  async function maintain(atStart: boolean): Promise<void> {
    try {
      await runs.beat(instanceId, [...liveIds()], now())
    } catch (err) {
      log.warn({ err: { message: errorText(err) } }, 'xxl-job: cannot beat the runs heartbeat')
    }
    for (const { live, outcome } of [...unsaved.values()]) await saveResult(live, outcome)
    try {
      await sweepOrphans(atStart)
    } catch (err) {
      log.warn({ err: { message: errorText(err) } }, 'xxl-job: cannot sweep for dead executors runs')
    }
  }

  function scheduleMaintenance(): void {
    if (closing) return
    maintenanceTimer = setTimeout(() => {
      maintenance = maintain(false).finally(() => {
        maintenance = undefined
        scheduleMaintenance()
      })
    }, timing.heartbeatIntervalMs)
    maintenanceTimer.unref()
  }

  return {
    plugin: createXxlJobPlugin(ops, config.accessToken),
    instanceId,

    async start() {
      if (started || closing) return
      started = true
      await maintain(true)
      if (closing) return
      outbox.start()
      registration.start()
      scheduleMaintenance()
    },

    close() {
      closed ??= (async () => {
        closing = true
        clearTimeout(maintenanceTimer)
        await maintenance
        await outbox.stop()
        const queued = slots.allQueued()
        for (const jobId of new Set(queued.map((q) => q.jobId))) slots.takeQueue(jobId)
        for (const q of queued) {
          track(
            closeUnstarted(q, failed(MSG.shuttingDown), [
              `----------- JobThread toStop, stopReason:${MSG.shuttingDown}`,
            ]),
          )
        }
        const running = slots.allRunning()
        if (running.length > 0) {
          log.info({ logIds: running.map((r) => r.logId) }, 'xxl-job: draining running runs')
          const wait = sleep(timing.drainTimeoutMs)
          await Promise.race([Promise.all(running.map((r) => r.done)), wait.promise])
          wait.cancel()
          for (const r of slots.allRunning()) stopRun(r, failed(MSG.shuttingDown), MSG.shuttingDown)
        }
        while (tracked.size > 0) await Promise.all([...tracked])
        for (const { live, outcome } of [...unsaved.values()]) await saveResult(live, outcome)
        await outbox.flushAll()
        await registration.stop()
      })()
      return closed
    },

    async status() {
      try {
        lastPending = await outbox.pendingCount()
      } catch (err) {
        log.warn({ err: { message: errorText(err) } }, 'xxl-job: cannot count pending callbacks')
      }
      return { ...slots.counts(), outboxPending: lastPending }
    },
  }
}
