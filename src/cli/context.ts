import pino from 'pino'
import { createServices, type Services } from '../compose.js'
import { type Config, loadConfig } from '../config.js'
import { createLogger, type Logger } from '../logger.js'
import { openStore, type Store } from '../storage/store.js'
import { terminalProgress } from './progress.js'

export interface CliContext {
  readonly config: Config
  readonly log: Logger
  readonly store: Store
  readonly services: Services
  readonly signal: AbortSignal
}

/** CLI logs go to stderr so that stdout carries only the command's output. */
export function cliLogger(config: Config): Logger {
  return process.stderr.isTTY ? createLogger(config) : createLogger(config, pino.destination(2))
}

/** Composition root for one CLI command: config, logger, store, services; always closes the store. */
export async function withContext<T>(run: (ctx: CliContext) => Promise<T>): Promise<T> {
  const config = loadConfig()
  const log = cliLogger(config)
  const store = await openStore(config, log)
  const services = createServices(config, log, store, { progress: terminalProgress() })
  const controller = new AbortController()
  const onSignal = (): void => controller.abort(new Error('interrupted'))
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)
  try {
    return await run({ config, log, store, services, signal: controller.signal })
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
    await services.close()
    await store.close()
  }
}
