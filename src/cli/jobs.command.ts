import type { Command } from 'commander'
import { formatStepLine } from '../scheduler/child-protocol.js'
import { parseIsoDate } from './options.js'

const DRAIN_DETAIL = 'requested by the service that started this run: stopping before the next step'

/** The summary is the command's output (stdout); on a terminal the `[step] ok` marker has already shown it. */
function printSummary(summary: string): void {
  if (!(process.stdout.isTTY && process.stderr.isTTY)) console.log(summary)
}

/** `stockplan build|plan|push-pool|chain [--date D]`: the same job functions the scheduler calls. */
export function registerJobCommands(program: Command): void {
  const steps = [
    ['build', 'score every stock for the data date into the tier score table'],
    ['plan', 'assemble the plan: snapshot, Markdown plan file, per-stock daily rows'],
    ['push-pool', 'write pool/<date>.json and push it to POOL_PUSH_URL'],
  ] as const
  for (const [name, description] of steps) {
    program
      .command(name)
      .description(description)
      .option('--date <YYYY-MM-DD>', 'data date (default: the latest the data allows)', parseIsoDate)
      .action(async (opts: { date?: string }) =>
        (await import('./context.js')).withContext(async ({ services, signal }) => {
          process.stderr.write(`${formatStepLine(name, 'start')}\n`)
          const result = await services.steps[name]({ date: opts.date }, signal)
          process.stderr.write(`${formatStepLine(name, 'ok', result.summary)}\n`)
          printSummary(result.summary)
        }),
      )
  }
  program
    .command('chain')
    .description('build, then plan, then push-pool, stopping at the first failure')
    .option('--date <YYYY-MM-DD>', 'data date (default: the latest bar date)', parseIsoDate)
    .option('--no-wait', 'refuse instead of waiting when another process runs the chain for the date')
    .action(async (opts: { date?: string; wait: boolean }) =>
      (await import('./context.js')).withContext(async ({ services, signal }) => {
        // SIGUSR2: the service that started this run is shutting down; stop before the next step
        let draining = false
        const drain = (): void => {
          // said once in the run log, so an operator (and a test) sees that the request arrived
          if (!draining) process.stderr.write(`${formatStepLine('chain', 'drain', DRAIN_DETAIL)}\n`)
          draining = true
        }
        process.on('SIGUSR2', drain)
        try {
          const result = await services.chain({ date: opts.date }, signal, {
            refuseIfBusy: !opts.wait,
            draining: () => draining,
            onStep: (step, event, detail) => {
              process.stderr.write(`${formatStepLine(step, event, detail)}\n`)
            },
          })
          printSummary(result.summary)
        } finally {
          process.off('SIGUSR2', drain)
        }
      }),
    )
}
