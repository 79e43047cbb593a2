import type { FastifyInstance } from 'fastify'
import { createOperationalSource, createServices, type Services } from './compose.js'
import type { Config } from './config.js'
import { errorText } from './errors.js'
import { buildApp } from './http/app.js'
import { listenError } from './listen-error.js'
import type { Logger } from './logger.js'
import { createScheduler, mountScheduler } from './scheduler-wiring.js'
import { createMetrics } from './services/metrics.js'
import { SERVER_STATEMENT_TIMEOUT_MS } from './storage/db.js'
import { openStore, type Store } from './storage/store.js'
import { checkTrustedDirectory, PLAN_SUBDIRECTORIES } from './storage/trusted-directory.js'

export interface RunningServer {
  readonly app: FastifyInstance
  readonly services: Services
  readonly store: Store
  readonly url: string
  /** Stops accepting, lets in-flight requests finish (bounded), then closes the store (and its embedded server). */
  close(): Promise<void>
}

const SHUTDOWN_GRACE_MS = 8000

/**
 * Opens the store (or takes the given one), builds the app and listens. Any failure after the store opened
 * (the port taken, a bad HOST) closes what was started, the embedded database included, before it throws.
 */
export async function startServer(config: Config, log: Logger, store?: Store): Promise<RunningServer> {
  await checkTrustedDirectory('PLAN_DATA_DIR', config.planDataDir, { subdirectories: PLAN_SUBDIRECTORIES })
  const opened =
    store ?? (await openStore(config, log, { supervise: true, statementTimeoutMs: SERVER_STATEMENT_TIMEOUT_MS }))
  opened.supervise() // also a store handed over (demo --serve): the server restarts its embedded database
  const metrics = createMetrics()
  const services = createServices(config, log, opened, { listen: true, observe: metrics.plan })
  metrics.setOperationalSource(createOperationalSource(services))
  const scheduler = createScheduler(services, metrics)
  let app: FastifyInstance | undefined
  let address: string
  try {
    app = await buildApp({
      ...services,
      metrics,
      extraPlugins: scheduler ? [mountScheduler(scheduler)] : [],
    })
    address = await app.listen({ port: config.port, host: config.host }).catch(async (err: unknown) => {
      throw await listenError(err, config.host, config.port)
    })
    await scheduler?.start()
  } catch (err) {
    log.error({ err: { message: errorText(err) } }, 'start-up failed; stopping what started')
    await app?.close().catch(() => undefined)
    await scheduler?.close().catch(() => undefined)
    await services.close().catch(() => undefined)
    if (!store) await opened.close().catch(() => undefined)
    throw err
  }
  log.info({ address, database: opened.embedded ? 'embedded' : 'external' }, 'stock plan service listening')
  let closing: Promise<void> | undefined
  const running = app
  return {
    app: running,
    services,
    store: opened,
    url: address,
    close() {
      closing ??= (async () => {
        const timer = setTimeout(() => {
          log.warn('in-flight requests did not finish in time; closing connections')
          running.server.closeAllConnections()
        }, SHUTDOWN_GRACE_MS)
        try {
          await running.close()
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

/**
 * `serve`: starts the server and closes it on SIGTERM/SIGINT. A start-up failure prints what to do and exits 1
 * once everything started is stopped; a signal during start-up stops what started and exits too, so no
 * embedded database is left behind.
 */
export async function serveUntilSignalled(
  config: Config,
  log: Logger,
  options: { store?: Store; onListening?: (server: RunningServer) => void } = {},
): Promise<void> {
  let interrupted: NodeJS.Signals | undefined
  const early = (signal: NodeJS.Signals): void => {
    interrupted = signal
    log.info({ signal }, 'interrupted while starting; stopping what started')
  }
  process.on('SIGTERM', early)
  process.on('SIGINT', early)
  let server: RunningServer
  try {
    server = await startServer(config, log, options.store)
  } catch (err) {
    await options.store?.close().catch(() => undefined) // a store handed over is ours to stop now
    log.fatal({ err: { message: errorText(err) } }, 'failed to start')
    console.error(`error: ${errorText(err)}`)
    process.exit(1)
  } finally {
    process.off('SIGTERM', early)
    process.off('SIGINT', early)
  }
  if (interrupted) {
    await server.close().catch(() => undefined)
    process.exit(0)
  }
  options.onListening?.(server)
  closeOnSignals(server, log)
}
