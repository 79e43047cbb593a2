import type { Command } from 'commander'
import { formatStepLine } from '../scheduler/child-protocol.js'
import { startCliRunRecord } from './cli-run-record.js'
import { parseIsoDate } from './options.js'

/**
 * SIGUSR2: the service that started this run is shutting down (src/scheduler/child-runner.ts). The request is said
 * once on stderr as a step line (the run log shows it arrived), and `draining` tells the job from then on; without a
 * handler the signal would end the process at once. `stop()` removes the handler.
 */
function onDrainRequest(step: string, detail: string): { draining: () => boolean; stop: () => void } {
  let draining = false
  const drain = (): void => {
    if (!draining)
      process.stderr.write(
        `${formatStepLine(step, 'drain', `requested by the service that started this run: ${detail}`)}\n`,
      )
    draining = true
  }
  process.on('SIGUSR2', drain)
  return { draining: () => draining, stop: () => process.off('SIGUSR2', drain) }
}

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
      .option(
        '--no-record',
        "keep no run record (the scheduler's child: the scheduler keeps its own); a run for a past date keeps none",
      )
      .action(async (opts: { date?: string; record: boolean }) =>
        (await import('./context.js')).withContext(async ({ services, signal }) => {
          // a single step has no boundary to stop at: it finishes (the service's drain time bounds it)
          const drain = onDrainRequest(name, 'finishing this step')
          // only a run for the latest data date speaks for the step: a rebuild of a past day must not clear (or raise)
          // the alert on tonight's run
          const recorded =
            opts.record && (opts.date === undefined || opts.date === (await services.market.latestBarDate()))
          const record = recorded ? await startCliRunRecord(services.store.db, name, opts.date) : undefined
          try {
            process.stderr.write(`${formatStepLine(name, 'start')}\n`)
            record?.step(name, 'start')
            const result = await services.steps[name]({ date: opts.date }, signal)
            process.stderr.write(`${formatStepLine(name, 'ok', result.summary)}\n`)
            record?.step(name, 'ok', result.summary)
            await record?.finish({ ok: true, summary: result.summary })
            printSummary(result.summary)
          } catch (err) {
            await record?.finish({ ok: false, error: err })
            throw err
          } finally {
            drain.stop()
          }
        }),
      )
  }
  program
    .command('chain')
    .description(
      'sync (when TUSHARE_TOKEN is set), then build, plan, push-pool and outcomes under a per-date lock, stopping at the first failure',
    )
    .option('--date <YYYY-MM-DD>', 'data date (default: the latest bar date)', parseIsoDate)
    .option('--no-wait', 'refuse instead of waiting when another process runs the chain for the date')
    .option('--no-record', "keep no run record (the scheduler's child: the scheduler keeps its own)")
    .action(async (opts: { date?: string; wait: boolean; record: boolean }) =>
      (await import('./context.js')).withContext(async ({ services, signal }) => {
        const drain = onDrainRequest('chain', 'stopping before the next step')
        const record = opts.record ? await startCliRunRecord(services.store.db, 'chain', opts.date) : undefined
        try {
          const result = await services.chain({ date: opts.date }, signal, {
            refuseIfBusy: !opts.wait,
            draining: drain.draining,
            onStep: (step, event, detail) => {
              process.stderr.write(`${formatStepLine(step, event, detail)}\n`)
              record?.step(step, event, detail)
            },
          })
          await record?.finish({ ok: true, summary: result.summary })
          printSummary(result.summary)
        } catch (err) {
          await record?.finish({ ok: false, error: err })
          throw err
        } finally {
          drain.stop()
        }
      }),
    )
}
