import type { Command } from 'commander'
import { Option } from 'commander'
import { importDirectory } from '../jobs/import/import-job.js'
import { withContext } from './context.js'
import { terminalProgress } from './progress.js'

export function registerImportCommand(program: Command): void {
  program
    .command('import')
    .description('load market CSVs (securities, bars, basics, ...) into the store; a re-import changes nothing')
    .requiredOption('--dir <DIR>', 'folder holding the CSV files')
    .addOption(new Option('--format <format>', 'column layout').choices(['native', 'tushare']).default('native'))
    .action((opts: { dir: string; format: 'native' | 'tushare' }) =>
      withContext(async ({ store, log, signal }) => {
        const result = await importDirectory(
          { db: store.db, pool: store.pool, log, progress: terminalProgress() },
          { dir: opts.dir, format: opts.format },
          signal,
        )
        console.log(result.summary)
      }),
    )
}
