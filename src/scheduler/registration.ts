import type { Logger } from '../logger.js'
import type { AdminClient } from './admin-client.js'

/**
 * Executor registration: `api/registry` at start and every `intervalMs` (the Java executor's 30 s beat; the admin
 * drops an executor after 90 s of silence and fails its long runs after 10 min), `api/registryRemove` on stop.
 * Off unless both an admin address and the executor address are configured.
 */
export interface Registration {
  start(): void
  /** Stops the beat and deregisters (one attempt). */
  stop(): Promise<void>
}

export interface RegistrationOptions {
  readonly admin: AdminClient
  readonly log: Logger
  readonly appName: string
  readonly executorAddress: string | undefined
  readonly intervalMs: number
}

export function createRegistration(options: RegistrationOptions): Registration {
  const { admin, log, appName, executorAddress } = options
  const enabled = admin.enabled && executorAddress !== undefined && appName !== ''
  const body = { registryGroup: 'EXECUTOR', registryKey: appName, registryValue: executorAddress }
  let timer: NodeJS.Timeout | undefined
  let active = false
  let inFlight: Promise<void> | undefined
  let failing = false

  async function register(): Promise<void> {
    const result = await admin.post('registry', body)
    if (result.ok) {
      if (failing) log.info({ admin: result.address }, 'xxl-job: executor registered again')
      else log.debug({ admin: result.address }, 'xxl-job: executor registered')
      failing = false
    } else if (!failing) {
      failing = true
      log.warn({ error: result.error }, 'xxl-job: executor registration failed; retrying every beat')
    }
  }

  function beat(): void {
    if (!active) return
    inFlight = register().finally(() => {
      inFlight = undefined
      if (!active) return
      timer = setTimeout(beat, options.intervalMs)
      timer.unref()
    })
  }

  return {
    start() {
      if (!enabled || active) return
      active = true
      log.info({ appName, executorAddress }, 'xxl-job: registering the executor')
      beat()
    },
    async stop() {
      if (!active) return
      active = false
      clearTimeout(timer)
      await inFlight
      const result = await admin.post('registryRemove', body)
      if (result.ok) log.info('xxl-job: executor deregistered')
      else log.warn({ error: result.error }, 'xxl-job: executor deregistration failed')
    },
  }
}
