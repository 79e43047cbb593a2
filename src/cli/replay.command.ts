import type { Command } from 'commander'
import { parseIsoDate } from './options.js'

/** `stockplan replay --from D --to D [--restart]`: the chain's build, plan and outcomes for past days, in order. */
export function registerReplayCommand(program: Command): void {
  program
    .command('replay')
    .description('rebuild tier scores, plans, daily rows, logic states and outcomes for past days, oldest first')
    .requiredOption('--from <YYYY-MM-DD>', 'first data date', parseIsoDate)
    .requiredOption('--to <YYYY-MM-DD>', 'last data date', parseIsoDate)
    .option('--restart', 'start again from --from instead of resuming an interrupted replay of the same range', false)
    .action(async (opts: { from: string; to: string; restart: boolean }) => {
      // the work is imported when the command runs, so `stockplan --help` stays quick
      const [{ withContext }, { terminalProgress }] = await Promise.all([
        import('./context.js'),
        import('./progress.js'),
      ])
      await withContext(async ({ services, signal }) => {
        const result = await services.replay(opts, signal, terminalProgress())
        console.log(result.summary)
      })
    })
}
