import type { Command } from 'commander'
import { createServices } from '../compose.js'
import { loadConfig } from '../config.js'
import { DEMO_DEFAULTS } from '../jobs/demo/generate.js'
import { runDemo } from '../jobs/demo.job.js'
import { closeOnSignals, startServer } from '../server.js'
import { openStore } from '../storage/store.js'
import { cliLogger } from './context.js'
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
      const config = loadConfig()
      const log = cliLogger(config)
      const store = await openStore(config, log)
      const services = createServices(config, log, store, { progress: terminalProgress() })
      const controller = new AbortController()
      const abort = (): void => controller.abort(new Error('interrupted'))
      process.once('SIGINT', abort)
      try {
        const result = await runDemo(services, store, terminalProgress(), { ...opts }, controller.signal)
        console.error(result.summary)
      } catch (err) {
        await services.close()
        await store.close()
        throw err
      } finally {
        process.off('SIGINT', abort)
      }
      await services.close()
      if (!opts.serve) {
        await store.close()
        return
      }
      const server = await startServer(config, log, store)
      console.error(
        `serving the demo plan at ${server.url}/plan (viewer at ${server.url}/, API docs at ${server.url}/docs)`,
      )
      closeOnSignals(server, log)
    })
}
