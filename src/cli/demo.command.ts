import { type Command, InvalidArgumentError } from 'commander'
import { DEMO_DEFAULTS } from '../jobs/demo/generate.js'
import { parseIntIn } from './options.js'

interface DemoCliOptions {
  stocks: number
  days: number
  seed: number
  signal: number
  history: number
  regenerate: boolean
  serve: boolean
}

function parseSignal(value: string): number {
  const n = Number(value)
  if (!/^\d+(\.\d+)?$/.test(value) || n > 5) throw new InvalidArgumentError('expected a number in 0..5')
  return n
}

/** Plan days replayed by default: 60 with 5-day outcomes, plus the 5 days whose outcomes are still open, and margin. */
export const DEMO_HISTORY = 70

export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description('generate a deterministic demo market, import it, run the chain; with --serve, then serve it')
    .option('--stocks <N>', 'number of stocks', parseIntIn(10, 6000), DEMO_DEFAULTS.stocks)
    .option('--days <D>', 'trading days of history', parseIntIn(2, 2500), DEMO_DEFAULTS.days)
    .option('--seed <S>', 'random seed', parseIntIn(0, 2 ** 31), DEMO_DEFAULTS.seed)
    .option(
      '--signal <S>',
      'strength of the planted A-share effects (docs/score.md): 1 at the sizes the studies report, 0 for the null market',
      parseSignal,
      DEMO_DEFAULTS.signal,
    )
    .option('--history <K>', 'replay the chain for the last K days', parseIntIn(1, 2500), DEMO_HISTORY)
    .option('--regenerate', 'generate and import again even if this demo is already loaded', false)
    .option('--serve', 'start the service afterwards (in the foreground)', false)
    .action(async (opts: DemoCliOptions) => {
      const [{ withContext }, { runDemo }, { terminalProgress }, { createLogger }, { serveUntilSignalled }] =
        await Promise.all([
          import('./context.js'),
          import('../jobs/demo.job.js'),
          import('./progress.js'),
          import('../logger.js'),
          import('../server.js'),
        ])
      // with --serve the store (and the embedded PostgreSQL it started) stays open and goes to the server
      const { store, config } = await withContext(
        async ({ services, store, config, signal }) => {
          const result = await runDemo(services, store, terminalProgress(), { ...opts }, signal)
          console.error(result.summary)
          return { store, config }
        },
        { keepStore: opts.serve },
      )
      if (!opts.serve) return
      const log = createLogger(config) // the server's log stream: stdout, as under `serve`
      await serveUntilSignalled(config, log, {
        store,
        onListening: (server) =>
          console.error(
            `serving the demo plan at ${server.url}/plan (viewer at ${server.url}/, track record at ${server.url}/track-record, API docs at ${server.url}/docs)`,
          ),
      })
    })
}
