import type { Command } from 'commander'
import { loadConfig } from '../config.js'
import { createLogger } from '../logger.js'
import { closeOnSignals, startServer } from '../server.js'

export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description('start the HTTP service (PORT, HOST, DATABASE_URL, PLAN_DATA_DIR)')
    .action(async () => {
      const config = loadConfig()
      const log = createLogger(config)
      closeOnSignals(await startServer(config, log), log)
    })
}
