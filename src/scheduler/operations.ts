import type { Config } from '../config.js'
import type { Logger } from '../logger.js'
import type { RunStore } from '../storage/run.repository.js'
import { HANDLER_NAMES, type HandlerName } from './contract.js'
import type { JobSlots } from './job-slots.js'
import { failed, killed, type LiveRun, type ShutdownState } from './live-run.js'
import { parseExecutorParams } from './params.js'
import type { ExecutorOps } from './plugin.js'
import {
  type ExecutorReply,
  fail,
  MSG,
  ok,
  okWith,
  parseBody,
  readJobId,
  readLogParam,
  readTriggerParam,
  resolveStrategy,
  type TriggerParam,
} from './protocol.js'
import type { RunLifecycle } from './run-lifecycle.js'
import { toLogResult } from './run-log.js'

const LOG_PAGE_LINES = 1000

export interface OperationsDeps {
  readonly runs: RunStore
  readonly slots: JobSlots<LiveRun>
  readonly lifecycle: RunLifecycle
  readonly log: Logger
  readonly now: () => Date
  readonly config: Pick<Config['xxlJob'], 'executorAddress'>
  readonly instanceId: string
  readonly shutdown: ShutdownState
  readonly onRunRefused?: () => void
}

function isHandlerName(name: string): name is HandlerName {
  return (HANDLER_NAMES as readonly string[]).includes(name)
}

/** Stops the job's running run and closes its queued ones, each with `reason` in its log and result. */
function stopJob(d: OperationsDeps, running: LiveRun | undefined, queued: readonly LiveRun[], reason: string): void {
  if (running) d.lifecycle.stopRun(running, killed(MSG.runningKilled(reason)), reason)
  for (const q of queued)
    d.lifecycle.closeUnstarted(q, killed(MSG.queuedKilled(reason)), [
      `----------- JobThread toStop, stopReason:${reason}`,
    ])
}

/** Stores the trigger as a run of this executor; false for a repeated logId. */
function insertRun(d: OperationsDeps, t: TriggerParam, handler: HandlerName): Promise<boolean> {
  return d.runs.insert({
    logId: t.logId,
    jobId: t.jobId,
    handler,
    params: t.executorParams,
    blockStrategy: t.executorBlockStrategy ?? resolveStrategy(t.executorBlockStrategy),
    timeoutS: t.executorTimeout,
    logDateTime: t.logDateTime ?? d.now().getTime(),
    ownerId: d.instanceId,
    ownerAddress: d.config.executorAddress,
    at: d.now(),
  })
}

/** `/run` once the trigger is stored: fail it on bad params, else queue it by its block strategy and start it. */
async function admitRun(d: OperationsDeps, t: TriggerParam, handler: HandlerName): Promise<ExecutorReply> {
  const strategy = resolveStrategy(t.executorBlockStrategy)
  const params = parseExecutorParams(t.executorParams)
  const live = d.lifecycle.create({
    logId: t.logId,
    jobId: t.jobId,
    handler,
    params: t.executorParams,
    args: params.ok ? params.args : {},
    strategy,
    timeoutS: t.executorTimeout,
  })
  if (!params.ok) {
    d.log.warn(
      { logId: t.logId, jobId: t.jobId, handler, error: params.error },
      'xxl-job: run accepted with invalid params; failing it',
    )
    d.lifecycle.closeUnstarted(live, failed(params.error), [`----------- Param:${t.executorParams}`, params.error])
    return ok()
  }
  const full = strategy === 'DISCARD_LATER' && d.slots.busy(t.jobId) ? undefined : d.lifecycle.overLimits(t.jobId)
  if (full) {
    await d.runs.remove(t.logId)
    d.onRunRefused?.()
    d.log.warn({ logId: t.logId, jobId: t.jobId, handler, ...full }, 'xxl-job: run refused, executor at its limits')
    return fail(MSG.tooManyRuns(full.running, full.queued))
  }
  const admission = d.slots.admit(t.jobId, live, strategy)
  if (admission.kind === 'discard') {
    await d.runs.remove(t.logId)
    d.log.info({ logId: t.logId, jobId: t.jobId }, 'xxl-job: trigger discarded (DISCARD_LATER, job busy)')
    return fail(MSG.discardLater)
  }
  stopJob(d, admission.covered.running, admission.covered.queued, MSG.coverEarly)
  d.log.info({ logId: t.logId, jobId: t.jobId, handler, strategy, args: live.args }, 'xxl-job: run accepted')
  d.lifecycle.pump(t.jobId)
  return ok()
}

async function run(d: OperationsDeps, body: unknown): Promise<ExecutorReply> {
  if (d.shutdown.closing) return fail(MSG.shuttingDown)
  const parsed = parseBody(body)
  if (!parsed.ok) return fail(parsed.error)
  const read = readTriggerParam(parsed.value)
  if (!read.ok) return fail(read.msg)
  const t = read.value
  if (t.glueType !== 'BEAN') return fail(MSG.glueInvalid(t.glueType ?? 'null'))
  const handler = t.executorHandler
  if (!isHandlerName(handler)) return fail(MSG.handlerNotFound(handler))
  if (!(await insertRun(d, t, handler))) return fail(MSG.repeatTrigger(t.logId))
  if (d.shutdown.closing) {
    await d.runs.remove(t.logId)
    return fail(MSG.shuttingDown)
  }
  return admitRun(d, t, handler)
}

async function kill(d: OperationsDeps, body: unknown): Promise<ExecutorReply> {
  const parsed = parseBody(body)
  if (!parsed.ok) return fail(parsed.error)
  const read = readJobId(parsed.value)
  if (!read.ok) return fail(read.msg)
  const jobId = read.value
  const running = d.slots.running(jobId)
  const queued = d.slots.takeQueue(jobId)
  if (!running && queued.length === 0) return ok(MSG.alreadyKilled)
  d.log.info({ jobId, running: running?.logId, queued: queued.map((q) => q.logId) }, 'xxl-job: kill')
  stopJob(d, running, queued, MSG.killReason)
  return ok()
}

async function idleBeat(d: OperationsDeps, body: unknown): Promise<ExecutorReply> {
  const parsed = parseBody(body)
  if (!parsed.ok) return fail(parsed.error)
  const read = readJobId(parsed.value)
  if (!read.ok) return fail(read.msg)
  return d.slots.busy(read.value) ? fail(MSG.busy) : ok()
}

async function readLog(d: OperationsDeps, body: unknown): Promise<ExecutorReply> {
  const parsed = parseBody(body)
  if (!parsed.ok) return fail(parsed.error)
  const read = readLogParam(parsed.value)
  if (!read.ok) return fail(read.msg)
  const { logId, fromLineNum } = read.value
  return okWith(toLogResult(fromLineNum, await d.runs.readLog(logId, fromLineNum, LOG_PAGE_LINES)))
}

/** The operations behind the executor's routes: `/beat`, `/idleBeat`, `/run`, `/kill`, `/log`. */
export function createOperations(deps: OperationsDeps): ExecutorOps {
  return {
    beat: async () => ok(),
    idleBeat: (body) => idleBeat(deps, body),
    run: (body) => run(deps, body),
    kill: (body) => kill(deps, body),
    log: (body) => readLog(deps, body),
  }
}
