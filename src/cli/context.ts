import { createServices, type Services } from '../compose.js'
import { type Config, loadConfig } from '../config.js'
import { createLogger, type Logger } from '../logger.js'
import { openStore, type Store } from '../storage/store.js'
import { checkTrustedDirectory, PLAN_SUBDIRECTORIES } from '../storage/trusted-directory.js'
import { terminalProgress } from './progress.js'

export interface CliContext {
  readonly config: Config
  readonly log: Logger
  readonly store: Store
  readonly services: Services
  readonly signal: AbortSignal
}

/** A CLI command's logs go to stderr so that stdout carries only the command's output. */
export function cliLogger(config: Config): Logger {
  return createLogger(config, undefined, 2)
}

/**
 * Composition root for one CLI command: config, logger, store, services. Closes the store afterwards unless
 * `keepStore` (then the caller owns it: `demo --serve` hands it to the server instead of restarting PostgreSQL).
 * The command's signal aborts on SIGINT or SIGTERM, or when `stop` does (a worker thread receives no signals).
 */
export async function withContext<T>(
  run: (ctx: CliContext) => Promise<T>,
  options: { keepStore?: boolean; stop?: AbortSignal } = {},
): Promise<T> {
  const config = loadConfig()
  const log = cliLogger(config)
  await checkTrustedDirectory('PLAN_DATA_DIR', config.planDataDir, { subdirectories: PLAN_SUBDIRECTORIES })
  const store = await openStore(config, log)
  const services = createServices(config, log, store, { progress: terminalProgress() })
  const controller = new AbortController()
  const onSignal = (): void => controller.abort(new Error('interrupted'))
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)
  options.stop?.addEventListener('abort', () => controller.abort(options.stop!.reason), { once: true })
  let failed = true
  try {
    const result = await run({ config, log, store, services, signal: controller.signal })
    failed = false
    return result
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
    await services.close()
    if (failed || !options.keepStore) await store.close()
  }
}
