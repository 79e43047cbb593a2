import type { FastifyInstance } from 'fastify'
import { createServices, type Services } from './compose.js'
import type { Config } from './config.js'
import { buildApp } from './http/app.js'
import type { Logger } from './logger.js'
import { createScheduler, mountScheduler } from './scheduler-wiring.js'
import { createMetrics } from './services/metrics.js'
import { openStore, type Store } from './storage/store.js'

export interface RunningServer {
  readonly app: FastifyInstance
  readonly services: Services
  readonly store: Store
  readonly url: string
  /** Stops accepting, lets in-flight requests finish (bounded), then closes the store (and its embedded server). */
  close(): Promise<void>
}

const SHUTDOWN_GRACE_MS = 8000

export async function startServer(config: Config, log: Logger, store?: Store): Promise<RunningServer> {
  const opened = store ?? (await openStore(config, log))
  const metrics = createMetrics()
  const services = createServices(config, log, opened, { listen: true, observe: metrics.plan })
  const scheduler = createScheduler(services, metrics)
  const app = await buildApp({
    ...services,
    metrics,
    extraPlugins: scheduler ? [mountScheduler(scheduler)] : [],
  })
  const address = await app.listen({ port: config.port, host: config.host })
  await scheduler?.start()
  log.info({ address, database: opened.embedded ? 'embedded' : 'external' }, 'stock plan service listening')
  let closing: Promise<void> | undefined
  return {
    app,
    services,
    store: opened,
    url: address,
    close() {
      closing ??= (async () => {
        const timer = setTimeout(() => {
          log.warn('in-flight requests did not finish in time; closing connections')
          app.server.closeAllConnections()
        }, SHUTDOWN_GRACE_MS)
        try {
          await app.close()
        } finally {
          clearTimeout(timer)
        }
        await scheduler?.close()
        await services.close()
        await opened.close()
        log.info('stock plan service stopped')
      })()
      return closing
    },
  }
}

/** Closes the server on SIGTERM/SIGINT and exits 0 (1 if shutting down failed). */
export function closeOnSignals(server: RunningServer, log: Logger): void {
  let signalled = false
  const onSignal = (signal: NodeJS.Signals): void => {
    if (signalled) return
    signalled = true
    log.info({ signal }, 'shutting down')
    server.close().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err }, 'shutdown failed')
        process.exit(1)
      },
    )
  }
  process.on('SIGTERM', onSignal)
  process.on('SIGINT', onSignal)
}
