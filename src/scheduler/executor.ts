import { randomBytes } from 'node:crypto'
import os from 'node:os'
import { errorText } from '../errors.js'
import { createCallbackOutboxRepository } from '../storage/callback-outbox.repository.js'
import { createRunStore } from '../storage/run.repository.js'
import { createAdminClient } from './admin-client.js'
import { DEFAULT_TIMING, type XxlJobDeps, type XxlJobExecutor, type XxlJobTiming } from './contract.js'
import { drain } from './drain.js'
import { createJobSlots } from './job-slots.js'
import { EXECUTOR_STEP, type LiveRun, type ShutdownState } from './live-run.js'
import { createMaintenance } from './maintenance.js'
import { createOperations } from './operations.js'
import { createOutbox } from './outbox.js'
import { createXxlJobPlugin } from './plugin.js'
import { createRegistration } from './registration.js'
import { createRunLifecycle } from './run-lifecycle.js'

/**
 * The XXL-JOB executor, composed of parts with one job each: run lifecycle (run-lifecycle.ts), the route
 * operations (operations.ts), heartbeat and orphan sweep (maintenance.ts), shutdown (drain.ts), callback delivery
 * (outbox.ts) and registry beats (registration.ts).
 */
export function createXxlJobExecutor(deps: XxlJobDeps): XxlJobExecutor {
  const { db, log, config } = deps
  const now = deps.now ?? (() => new Date())
  const timing: XxlJobTiming = { ...DEFAULT_TIMING, ...deps.timing }
  const instanceId = deps.instanceId ?? `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`
  const shutdown: ShutdownState = { closing: false }
  const runs = createRunStore(db)
  const slots = createJobSlots<LiveRun>()
  const admin = createAdminClient({
    addresses: config.adminAddresses,
    accessToken: config.accessToken,
    timeoutMs: timing.adminTimeoutMs,
    fetch: deps.fetch ?? globalThis.fetch,
  })
  const outbox = createOutbox({
    callbacks: createCallbackOutboxRepository(db),
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
  const reportFinished = (code: number): void => {
    try {
      deps.onRunFinished?.(code)
    } catch (err) {
      log.warn({ err: { message: errorText(err) } }, 'xxl-job: onRunFinished threw')
    }
  }
  const common = { runs, log, now, instanceId, shutdown, config }
  const lifecycle = createRunLifecycle({
    ...common,
    slots,
    outbox,
    handlers: deps.handlers,
    timing,
    reportFinished,
    limits: deps.limits,
  })
  const maintenance = createMaintenance({ ...common, lifecycle, outbox, timing, reportFinished })
  const operations = createOperations({ ...common, slots, lifecycle, onRunRefused: deps.onRunRefused })

  let started = false
  let closed: Promise<void> | undefined
  let lastPending = 0
  return {
    plugin: createXxlJobPlugin(operations, config.accessToken),
    instanceId,
    async start() {
      if (started || shutdown.closing) return
      started = true
      await maintenance.runAtStart()
      if (shutdown.closing) return
      outbox.start()
      registration.start()
      maintenance.startLoop()
    },
    close() {
      closed ??= drain({ slots, lifecycle, maintenance, outbox, registration, log, timing, shutdown })
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
