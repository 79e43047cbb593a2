import { type ChildProcess, spawn } from 'node:child_process'

export interface ServerProcess {
  readonly child: ChildProcess
  readonly url: string
  readonly output: () => string
  /** Resolves with the exit code (or the signal name). */
  readonly exited: Promise<number | string>
}

const LISTENING = /"address":"(http:\/\/[^"]+)"[^\n]*"msg":"stock plan service listening"/

/** The URL a server started with PORT=0 listens on, once its log says so. */
export const listeningUrl = (output: string): string | undefined => LISTENING.exec(output)?.[1]

/**
 * `stockplan serve` as a real child process; resolves once /health answers. It listens on a port the kernel picks
 * (PORT=0) and the URL is read from its "listening" line: a port picked free beforehand could be taken by another
 * process's connection during the seconds the server takes to start.
 */
export async function startServerProcess(
  env: Record<string, string>,
  timeoutMs = 60_000,
  options: { descriptorLimit?: number } = {},
): Promise<ServerProcess> {
  let output = ''
  // with a descriptor limit, bash sets it (`ulimit -n`, soft and hard) and then becomes node
  const [command, args] =
    options.descriptorLimit === undefined
      ? [process.execPath, ['bin/stockplan.js', 'serve']]
      : ['bash', ['-c', `ulimit -n ${options.descriptorLimit} && exec "$0" bin/stockplan.js serve`, process.execPath]]
  const child = spawn(command, args, {
    env: { ...process.env, LOG_LEVEL: 'info', DATABASE_URL: '', HOST: '127.0.0.1', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.stdout!.on('data', (c: Buffer) => {
    output += c.toString()
  })
  child.stderr!.on('data', (c: Buffer) => {
    output += c.toString()
  })
  const exited = new Promise<number | string>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)),
  )
  const deadline = Date.now() + timeoutMs
  let url = ''
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${output}`)
    url ||= listeningUrl(output) ?? ''
    if (url) {
      const res = await fetch(`${url}/health`).catch(() => undefined)
      if (res?.status === 200) break
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`server did not answer /health in time:\n${output}`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  return { child, url, output: () => output, exited }
}
