import { type ChildProcess, spawn } from 'node:child_process'

export interface CliExit {
  readonly code: number | null
  readonly signal: string | null
  readonly output: string
  readonly ms: number
  /** Milliseconds from the start to the first output line matching `mark`, when asked for one. */
  readonly markMs?: number
}

/** Runs `stockplan <args>` as a real process; kills it (SIGKILL) if it outlives `timeoutMs`. */
export function runCli(
  args: string[],
  env: Record<string, string>,
  options: {
    timeoutMs?: number
    mark?: RegExp
    /** Called with all the output so far each time more arrives (e.g. to signal the process at a given point). */
    onOutput?: (output: string, child: ChildProcess) => void
  } = {},
): Promise<CliExit> {
  return new Promise((resolve) => {
    const started = Date.now()
    const child = spawn(process.execPath, ['bin/stockplan.js', ...args], {
      env: { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'info', HOST: '127.0.0.1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    let markMs: number | undefined
    const onData = (c: Buffer): void => {
      output += c.toString()
      if (markMs === undefined && options.mark?.test(output)) markMs = Date.now() - started
      options.onOutput?.(output, child)
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000)
    child.on('exit', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, output, ms: Date.now() - started, markMs })
    })
  })
}
