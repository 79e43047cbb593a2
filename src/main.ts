import { loadConfig } from './config.js'
import { createLogger } from './logger.js'
import { serveUntilSignalled } from './server.js'

// `npm start`: the compiled server. The CLI's `stockplan serve` does the same from the sources.
const config = loadConfig()
await serveUntilSignalled(config, createLogger(config))
