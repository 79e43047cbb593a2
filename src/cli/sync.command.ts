import type { Command } from 'commander'
import { formatStepLine } from '../scheduler/child-protocol.js'
import { parseIsoDate } from './options.js'

/** `stockplan sync [--from D] [--to D]`: the days from tushare's HTTP API into the store (TUSHARE_TOKEN). */
export function registerSyncCommand(program: Command): void {
  program
    .command('sync')
    .description("pull trading days from tushare's HTTP API into the store, one transaction per day (TUSHARE_TOKEN)")
    .option('--from <YYYY-MM-DD>', 'first day (default: the day after the store has its last bars)', parseIsoDate)
    .option('--to <YYYY-MM-DD>', 'last day (default: today in Shanghai)', parseIsoDate)
    .action(async (opts: { from?: string; to?: string }) => {
      const [{ withContext }, { terminalProgress }] = await Promise.all([
        import('./context.js'),
        import('./progress.js'),
      ])
      await withContext(async ({ services, signal }) => {
        process.stderr.write(`${formatStepLine('sync', 'start')}\n`)
        const result = await services.sync(opts, signal, terminalProgress())
        process.stderr.write(`${formatStepLine('sync', 'ok', result.summary)}\n`)
        for (const line of result.skipped) console.error(`warning: ${line}`)
        console.log(result.summary)
      })
    })
}
