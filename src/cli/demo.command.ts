import type { Command } from 'commander'
import { loadConfig } from '../config.js'
import { DEMO_DEFAULTS } from '../jobs/demo/generate.js'
import { runDemo } from '../jobs/demo.job.js'
import { closeOnSignals, startServer } from '../server.js'
import { cliLogger, withContext } from './context.js'
import { parseIntIn } from './options.js'
import { terminalProgress } from './progress.js'

interface DemoCliOptions {
  stocks: number
  days: number
  seed: number
  history: number
  regenerate: boolean
  serve: boolean
}

export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description('generate a deterministic demo market, import it, run the chain; with --serve, then serve it')
    .option('--stocks <N>', 'number of stocks', parseIntIn(10, 6000), DEMO_DEFAULTS.stocks)
    .option('--days <D>', 'trading days of history', parseIntIn(2, 2500), DEMO_DEFAULTS.days)
    .option('--seed <S>', 'random seed', parseIntIn(0, 2 ** 31), DEMO_DEFAULTS.seed)
    .option('--history <K>', 'run the chain for the last K days', parseIntIn(1, 60), 5)
    .option('--regenerate', 'generate and import again even if this demo is already loaded', false)
    .option('--serve', 'start the service afterwards (in the foreground)', false)
    .action(async (opts: DemoCliOptions) => {
      await withContext(async ({ services, store, signal }) => {
        const result = await runDemo(services, store, terminalProgress(), { ...opts }, signal)
        console.error(result.summary)
      })
      if (!opts.serve) return
      const config = loadConfig()
      const log = cliLogger(config)
      const server = await startServer(config, log)
      console.error(
        `serving the demo plan at ${server.url}/plan (viewer at ${server.url}/, API docs at ${server.url}/docs)`,
      )
      closeOnSignals(server, log)
    })
}
