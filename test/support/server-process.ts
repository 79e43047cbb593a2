import { type ChildProcess, spawn } from 'node:child_process'
import { freePort } from '../../src/storage/embedded-postgres.js'

export interface ServerProcess {
  readonly child: ChildProcess
  readonly url: string
  readonly output: () => string
  /** Resolves with the exit code (or the signal name). */
  readonly exited: Promise<number | string>
}

/** `stockplan serve` as a real child process on a free port; resolves once /health answers. */
export async function startServerProcess(env: Record<string, string>, timeoutMs = 60_000): Promise<ServerProcess> {
  const port = await freePort()
  let output = ''
  const child = spawn(process.execPath, ['bin/stockplan.js', 'serve'], {
    env: { ...process.env, LOG_LEVEL: 'info', DATABASE_URL: '', HOST: '127.0.0.1', PORT: String(port), ...env },
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
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${output}`)
    try {
      const res = await fetch(`${url}/health`)
      if (res.status === 200) break
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`server did not answer /health in time:\n${output}`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  return { child, url, output: () => output, exited }
}
