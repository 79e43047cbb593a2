import { type Config, loadConfig } from '../config.js'
import { createLogger, type Logger } from '../logger.js'
import { openStore, type Store } from '../storage/store.js'

export interface CliContext {
  readonly config: Config
  readonly log: Logger
  readonly store: Store
}

/** Composition root for one CLI command: config, logger, store; always closes the store. */
export async function withContext<T>(run: (ctx: CliContext) => Promise<T>): Promise<T> {
  const config = loadConfig()
  const log = createLogger(config)
  const store = await openStore(config, log)
  const controller = new AbortController()
  const onSignal = (): void => controller.abort(new Error('interrupted'))
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)
  try {
    return await run({ config, log, store })
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
    await store.close()
  }
}
