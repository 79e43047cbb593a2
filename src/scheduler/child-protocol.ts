/**
 * The text protocol between a `stockplan` job command and the scheduler process that started it, defined once:
 * - stderr, `[step] event detail` lines: progress, attributed to a step of the run log;
 * - stderr, one error line before a non-zero exit: `error: <message>` or `configuration error: <message>`;
 * - stdout, the last line on success: the job's summary.
 * Anything else on stderr (a pino log line, a warning) is not part of the protocol and is ignored.
 */

export type ErrorKind = 'error' | 'configuration error'

export type ChildLine =
  | { readonly kind: 'step'; readonly step: string; readonly event: string; readonly detail: string | undefined }
  | { readonly kind: 'error'; readonly errorKind: ErrorKind; readonly message: string }
  | { readonly kind: 'other'; readonly text: string }

/** `[step] text`: the step tag every run-log line may start with (handlers in-process use it too). */
export const STEP_TAG = /^\[([A-Za-z0-9_.:-]{1,40})\]\s?(.*)$/s
const ERROR_KINDS: readonly ErrorKind[] = ['configuration error', 'error']

export function formatStepLine(step: string, event: string, detail?: string): string {
  return `[${step}] ${event}${detail ? ` ${detail}` : ''}`
}

export function formatErrorLine(errorKind: ErrorKind, message: string): string {
  // one line, so that the reader never loses the rest of a multi-line message
  return `${errorKind}: ${message.replace(/\s*\n\s*/g, ' ')}`
}

/** Reads one stderr line of a job command. */
export function parseChildLine(line: string): ChildLine {
  const step = STEP_TAG.exec(line)
  if (step) {
    const [event = '', ...rest] = (step[2] ?? '').split(' ')
    return { kind: 'step', step: step[1]!, event, detail: rest.length > 0 ? rest.join(' ') : undefined }
  }
  for (const errorKind of ERROR_KINDS) {
    const prefix = `${errorKind}: `
    if (line.startsWith(prefix)) return { kind: 'error', errorKind, message: line.slice(prefix.length) }
  }
  return { kind: 'other', text: line }
}

/** The summary a job command printed: the last non-empty line of its stdout. */
export function summaryOf(stdout: string): string {
  return (
    stdout
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '')
      .at(-1) ?? ''
  )
}

/** The message a failed run reports from the child's error line; a configuration error says so. */
export function errorMessage(line: Extract<ChildLine, { kind: 'error' }>): string {
  return line.errorKind === 'error' ? line.message : `${line.errorKind}: ${line.message}`
}
