import type { Command } from 'commander'
import { withContext } from './context.js'
import { parseIsoDate } from './options.js'
import { terminalProgress } from './progress.js'

/** `stockplan replay --from D --to D [--restart]`: the chain's build, plan and outcomes for past days, in order. */
export function registerReplayCommand(program: Command): void {
  program
    .command('replay')
    .description('rebuild tier scores, plans, daily rows, logic states and outcomes for past days, oldest first')
    .requiredOption('--from <YYYY-MM-DD>', 'first data date', parseIsoDate)
    .requiredOption('--to <YYYY-MM-DD>', 'last data date', parseIsoDate)
    .option('--restart', 'start again from --from instead of resuming an interrupted replay of the same range', false)
    .action((opts: { from: string; to: string; restart: boolean }) =>
      withContext(async ({ services, signal }) => {
        const result = await services.replay(opts, signal, terminalProgress())
        console.log(result.summary)
      }),
    )
}
