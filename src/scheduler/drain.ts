import type { Logger } from '../logger.js'
import type { XxlJobTiming } from './contract.js'
import type { JobSlots } from './job-slots.js'
import { cancellableDelay, failed, type LiveRun, type ShutdownState } from './live-run.js'
import type { Maintenance } from './maintenance.js'
import type { Outbox } from './outbox.js'
import { MSG } from './protocol.js'
import type { Registration } from './registration.js'
import type { RunLifecycle } from './run-lifecycle.js'

export interface DrainDeps {
  readonly slots: JobSlots<LiveRun>
  readonly lifecycle: Pick<RunLifecycle, 'closeUnstarted' | 'stopRun' | 'settleAll' | 'retryUnsaved'>
  readonly maintenance: Pick<Maintenance, 'stop'>
  readonly outbox: Pick<Outbox, 'stop' | 'flushAll'>
  readonly registration: Pick<Registration, 'stop'>
  readonly log: Logger
  readonly timing: Pick<XxlJobTiming, 'drainTimeoutMs'>
  readonly shutdown: ShutdownState
}

/** Fails every queued run: the service is going away before it could start them. */
function failQueued(d: DrainDeps): void {
  const queued = d.slots.allQueued()
  for (const jobId of new Set(queued.map((q) => q.jobId))) d.slots.takeQueue(jobId)
  for (const q of queued)
    d.lifecycle.closeUnstarted(q, failed(MSG.shuttingDown), [
      `----------- JobThread toStop, stopReason:${MSG.shuttingDown}`,
    ])
}

/** Lets running handlers stop at their next step boundary for up to `drainTimeoutMs`, then aborts the rest. */
async function drainRunning(d: DrainDeps): Promise<void> {
  const running = d.slots.allRunning()
  if (running.length === 0) return
  d.log.info({ logIds: running.map((r) => r.logId) }, 'xxl-job: draining running runs')
  const wait = cancellableDelay(d.timing.drainTimeoutMs)
  await Promise.race([Promise.all(running.map((r) => r.done)), wait.promise])
  wait.cancel()
  for (const r of d.slots.allRunning()) d.lifecycle.stopRun(r, failed(MSG.shuttingDown), MSG.shuttingDown)
}

/**
 * The executor's shutdown, in order: refuse new runs, stop the heartbeat and the callback loop, fail the queue,
 * drain the running runs, store every result, deliver every callback it can (retrying within the drain time),
 * deregister.
 */
export async function drain(d: DrainDeps): Promise<void> {
  d.shutdown.closing = true
  await d.maintenance.stop()
  await d.outbox.stop()
  failQueued(d)
  await drainRunning(d)
  await d.lifecycle.settleAll()
  await d.lifecycle.retryUnsaved()
  await d.outbox.flushAll(d.timing.drainTimeoutMs)
  await d.registration.stop()
}
