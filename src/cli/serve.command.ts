import type { Command } from 'commander'

export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description('start the HTTP service (PORT, HOST, DATABASE_URL, PLAN_DATA_DIR)')
    .action(async () => {
      const [{ loadConfig }, { createLogger }, { serveUntilSignalled }] = await Promise.all([
        import('../config.js'),
        import('../logger.js'),
        import('../server.js'),
      ])
      const config = loadConfig()
      const log = createLogger(config) // the server's log stream is stdout, under `serve` and `demo --serve` alike
      await serveUntilSignalled(config, log)
    })
}
