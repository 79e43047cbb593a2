import { loadConfig } from './config.js'
import { createLogger } from './logger.js'
import { closeOnSignals, startServer } from './server.js'

// `npm start`: the compiled server. The CLI's `stockplan serve` does the same from the sources.
const config = loadConfig()
const log = createLogger(config)
try {
  closeOnSignals(await startServer(config, log), log)
} catch (err) {
  log.fatal({ err }, 'failed to start: check DATABASE_URL / PG_DATA_DIR and that the port is free')
  process.exit(1)
}
