import type { Command } from 'commander'
import { parseIsoDate } from './options.js'

/**
 * A replay allocates some 300 MB of short-lived rows a day: in V8's default young generation (16 MB semi-spaces)
 * a fifth of its time went to scavenges. Measured on the 250-day real replay: 192 MB 128 s, 384 MB 116 s,
 * 512 MB 107 s, 1024 MB 109 s; 512 MB costs some 400 MB more memory at its peak.
 */
const REPLAY_YOUNG_GENERATION_MB = 512

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
      const [{ withContext }, { terminalProgress }, worker] = await Promise.all([
        import('./context.js'),
        import('./progress.js'),
        import('./command-worker.js'),
      ])
      if (!worker.inCommandWorker()) {
        const code = await worker.runCommandInWorker({
          youngGenerationMb: REPLAY_YOUNG_GENERATION_MB,
          progress: terminalProgress(),
        })
        if (code !== 0) process.exitCode = code
        return
      }
      await withContext(
        async ({ services, signal, log }) => {
          log.debug({ youngGenerationMb: REPLAY_YOUNG_GENERATION_MB }, 'replay running in a worker thread')
          const result = await services.replay(opts, signal, worker.mainThreadProgress())
          console.log(result.summary)
        },
        { stop: worker.mainThreadStop() },
      )
    })
}
