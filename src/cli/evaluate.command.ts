import type { Command } from 'commander'
import { DEFAULT_BENCHMARK, HORIZONS } from '../domain/outcomes.js'
import { parseIntIn, parseIsoDate } from './options.js'

interface EvaluateOptions {
  from?: string
  to?: string
  horizon: number
  benchmark: string
  json: boolean
}

/** `stockplan evaluate`: the track record of the published plans as a tear sheet (or JSON). */
export function registerEvaluateCommand(program: Command): void {
  program
    .command('evaluate')
    .description('track record of the published plans: rank IC, quintiles, groups, main vs benchmark after costs')
    .option('--from <YYYY-MM-DD>', 'first plan date (default: the first with outcomes)', parseIsoDate)
    .option('--to <YYYY-MM-DD>', 'last plan date (default: the last with outcomes)', parseIsoDate)
    .option('--horizon <H>', `holding period in trading days (${HORIZONS.join(', ')})`, parseIntIn(1, 20), 5)
    .option('--benchmark <CODE>', 'index code in index_bars', DEFAULT_BENCHMARK)
    .option('--json', 'print the figures as JSON', false)
    .action(async (opts: EvaluateOptions) => {
      const [{ withContext }, { renderTearSheet }] = await Promise.all([
        import('./context.js'),
        import('./tear-sheet.js'),
      ])
      await withContext(async ({ services }) => {
        const report = await services.trackRecord.evaluate({
          from: opts.from,
          to: opts.to,
          horizon: opts.horizon,
          benchmark: opts.benchmark,
        })
        console.log(opts.json ? JSON.stringify(report, null, 2) : renderTearSheet(report))
      })
    })
}
