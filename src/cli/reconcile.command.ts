import type { Command } from 'commander'
import { splitCodes } from '../domain/code-list.js'
import type { VerdictList, VerdictService } from '../services/verdict.service.js'
import { parseIsoDate } from './options.js'

export interface ReconcileOptions {
  readonly codes: readonly string[]
  readonly date?: string
  readonly json?: boolean
}

/** Exit status: 0 all codes understood and answered, 2 any code not understood, 1 any per-stock data failure. */
export function reconcileExitCode(list: VerdictList): number {
  if (list.verdicts.some((v) => 'error' in v && !('code' in v))) return 2
  if (list.verdicts.some((v) => 'error' in v)) return 1
  return 0
}

/** One line per code: input, decision and the endpoint's `verdict_text` (or `error` and why), tab-separated. */
export function reconcileLines(list: VerdictList): string[] {
  return list.verdicts.map((v) =>
    'error' in v ? `${v.input}\terror\t${v.error}` : `${v.input}\t${v.decision}\t${v.verdict_text}`,
  )
}

/** `stockplan reconcile`: the verdicts `GET /plan/verdict` gives, printed; returns the exit status. */
export async function reconcile(
  verdicts: Pick<VerdictService, 'lookup'>,
  options: ReconcileOptions,
  out: { line(text: string): void; note(text: string): void },
): Promise<number> {
  // an argument may itself be a comma list, as the endpoint's `codes` is
  const list = await verdicts.lookup({ codes: options.codes.flatMap((arg) => splitCodes(arg)), date: options.date })
  if (options.json) out.line(JSON.stringify(list, null, 2))
  else {
    out.note(`verdicts for tier date ${list.date}${list.stale ? ` (stale: ${list.stale})` : ''}`)
    for (const line of reconcileLines(list)) out.line(line)
  }
  return reconcileExitCode(list)
}

export function registerReconcileCommand(program: Command): void {
  program
    .command('reconcile')
    .description('per code, the plan verdict of a tier date: the same decision and line as GET /plan/verdict')
    .argument('<codes...>', 'codes as 600519.SH, SH600519 or 600519 (an argument may be a comma list)')
    .option('--date <YYYY-MM-DD>', 'tier date (default: the latest)', parseIsoDate)
    .option('--json', 'print the GET /plan/verdict body instead of one line per code')
    .action(async (codes: string[], opts: { date?: string; json?: boolean }) =>
      (await import('./context.js')).withContext(async ({ services }) => {
        process.exitCode = await reconcile(
          services.verdicts,
          { codes, date: opts.date, json: opts.json },
          { line: (text) => console.log(text), note: (text) => console.error(text) },
        )
      }),
    )
}
