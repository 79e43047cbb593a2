import type { Command } from 'commander'
import { Option } from 'commander'

export function registerImportCommand(program: Command): void {
  program
    .command('import')
    .description('load market CSVs (securities, bars, basics, ...) into the store; a re-import changes nothing')
    .requiredOption('--dir <DIR>', 'folder holding the CSV files')
    .addOption(
      new Option('--format <format>', 'column layout: native, or a tushare bundle (files named after its interfaces)')
        .choices(['native', 'tushare'])
        .default('native'),
    )
    .addOption(
      new Option('--encoding <encoding>', 'text encoding of the files').choices(['utf8', 'gbk']).default('utf8'),
    )
    .action(async (opts: { dir: string; format: 'native' | 'tushare'; encoding: 'utf8' | 'gbk' }) => {
      const [{ withContext }, { importDirectory }, { createImportStore }, { terminalProgress }] = await Promise.all([
        import('./context.js'),
        import('../jobs/import/import-job.js'),
        import('../storage/import.repository.js'),
        import('./progress.js'),
      ])
      await withContext(async ({ store, log, signal }) => {
        const result = await importDirectory(
          { imports: createImportStore(store.pool), log, progress: terminalProgress() },
          { dir: opts.dir, format: opts.format, encoding: opts.encoding },
          signal,
        )
        if (result.files.length === 0) {
          console.error(
            `${result.summary}: nothing imported. Put the exported CSV files in that folder (or pass the folder ` +
              `that holds them with --dir${opts.format === 'native' ? '; tushare exports need --format tushare' : ''})`,
          )
          process.exitCode = 1
          return
        }
        console.log(result.summary)
        for (const warning of result.warnings) console.error(`warning: ${warning}`)
      })
    })
}
