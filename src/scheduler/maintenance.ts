import type { Config } from '../config.js'
import { errorText } from '../errors.js'
import type { Logger } from '../logger.js'
import type { OrphanRun, RunStore } from '../storage/run.repository.js'
import type { XxlJobTiming } from './contract.js'
import { EXECUTOR_STEP, type ShutdownState } from './live-run.js'
import type { Outbox } from './outbox.js'
import { HANDLE_FAIL, MSG } from './protocol.js'
import type { RunLifecycle } from './run-lifecycle.js'
import { textLines } from './run-log.js'

export interface MaintenanceDeps {
  readonly runs: RunStore
  readonly lifecycle: Pick<RunLifecycle, 'liveIds' | 'retryUnsaved'>
  readonly outbox: Pick<Outbox, 'kick'>
  readonly log: Logger
  readonly now: () => Date
  readonly timing: Pick<XxlJobTiming, 'heartbeatIntervalMs' | 'staleRunAfterMs'>
  readonly config: Pick<Config['xxlJob'], 'executorAddress'>
  readonly instanceId: string
  readonly shutdown: ShutdownState
  readonly reportFinished: (code: number) => void
}

/** Closes one dead executor's run as failed; false when another executor closed it first. */
async function closeOrphan(d: MaintenanceDeps, orphan: OrphanRun, at: Date): Promise<boolean> {
  if (!(await d.runs.closeOrphan(orphan, MSG.restarted, at))) return false
  d.reportFinished(HANDLE_FAIL)
  d.log.warn({ logId: orphan.logId, owner: orphan.ownerId }, 'xxl-job: closed a run left by a dead executor')
  const line = `----------- ${MSG.restarted} (its executor ${orphan.ownerId} stopped)`
  await d.runs
    .appendLines(orphan.logId, EXECUTOR_STEP, textLines(line), at)
    .catch((err: unknown) =>
      d.log.warn({ logId: orphan.logId, err: { message: errorText(err) } }, 'xxl-job: cannot append to the run log'),
    )
  return true
}

async function sweepOrphans(d: MaintenanceDeps, atStart: boolean): Promise<void> {
  const at = d.now()
  // at start, runs left by a previous process at this same executor address are dead whatever their heartbeat
  const orphans = await d.runs.findOrphans(
    d.instanceId,
    new Date(at.getTime() - d.timing.staleRunAfterMs),
    atStart ? d.config.executorAddress : undefined,
  )
  const mine = d.lifecycle.liveIds()
  let closedAny = false
  for (const orphan of orphans) {
    if (orphan.ownerId === d.instanceId && mine.has(orphan.logId)) continue
    if (await closeOrphan(d, orphan, at)) closedAny = true
  }
  if (closedAny) d.outbox.kick()
}

/** One tick: beat this process's runs, retry unsaved results, close dead executors' runs. */
async function maintain(d: MaintenanceDeps, atStart: boolean): Promise<void> {
  try {
    await d.runs.beat(d.instanceId, [...d.lifecycle.liveIds()], d.now())
  } catch (err) {
    d.log.warn({ err: { message: errorText(err) } }, 'xxl-job: cannot beat the runs heartbeat')
  }
  await d.lifecycle.retryUnsaved()
  try {
    await sweepOrphans(d, atStart)
  } catch (err) {
    d.log.warn({ err: { message: errorText(err) } }, 'xxl-job: cannot sweep for dead executors runs')
  }
}

/** The heartbeat loop: a tick every `heartbeatIntervalMs`, never two at once, stopped by `stop()`. */
export function createMaintenance(deps: MaintenanceDeps) {
  let timer: NodeJS.Timeout | undefined
  let ticking: Promise<void> | undefined
  const schedule = (): void => {
    if (deps.shutdown.closing) return
    timer = setTimeout(() => {
      ticking = maintain(deps, false).finally(() => {
        ticking = undefined
        schedule()
      })
    }, deps.timing.heartbeatIntervalMs)
    timer.unref()
  }
  return {
    /** The first tick (at start), then the loop. */
    runAtStart: () => maintain(deps, true),
    startLoop: schedule,
    /** Stops the loop and waits for a tick under way. */
    async stop(): Promise<void> {
      clearTimeout(timer)
      await ticking
    },
  }
}

export type Maintenance = ReturnType<typeof createMaintenance>
