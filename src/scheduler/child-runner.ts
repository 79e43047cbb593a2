import { spawn } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Config } from '../config.js'
import { errorMessage, parseChildLine, summaryOf } from './child-protocol.js'

const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'stockplan.js')
const DRAIN_POLL_MS = 200

export interface ChildJobContext {
  /** Receives the child's step lines (`[build] start`, `[plan] ok ...`). */
  readonly log: (line: string) => Promise<void> | void
  readonly signal: AbortSignal
  /** Polled; once true the child is asked (SIGUSR2) to stop at the next step boundary. */
  readonly draining: () => boolean
}

/**
 * The settings a job process needs, as environment variables, so it sees exactly what this process sees:
 * `base` is this process's environment (from config.ts), less the scheduler's own XXLJOB_ keys and less
 * TUSHARE_TOKEN: only a process that syncs gets the token (`syncEnvironment`), not build, plan or push-pool.
 */
export function jobEnvironment(
  config: Config,
  databaseUrl: string,
  base: Record<string, string>,
  codeCommit: string | undefined,
): Record<string, string> {
  const env: Record<string, string> = {
    ...base,
    DATABASE_URL: databaseUrl,
    PG_DATA_DIR: config.pgDataDir,
    PLAN_DATA_DIR: config.planDataDir,
    POOL_TOP: String(config.poolTop),
    POOL_MAX: String(config.poolMax),
    LOG_LEVEL: 'warn',
  }
  if (config.poolPushUrl) env.POOL_PUSH_URL = config.poolPushUrl
  if (codeCommit) env.STOCKPLAN_COMMIT = codeCommit
  env.TUSHARE_URL = config.tushare.url
  delete env.TUSHARE_TOKEN
  for (const key of Object.keys(env)) if (key.startsWith('XXLJOB_')) delete env[key]
  return env
}

/** A job environment for a process that syncs from tushare (`sync`, and `chain`, which syncs first). */
export function syncEnvironment(config: Config, jobEnv: Record<string, string>): Record<string, string> {
  return config.tushare.token ? { ...jobEnv, TUSHARE_TOKEN: config.tushare.token } : jobEnv
}

/** Splits a stream into lines and hands each whole line on; the tail waits for the rest of its line. */
function lineReader(onLine: (line: string) => void): (chunk: Buffer) => void {
  let pending = ''
  return (chunk) => {
    pending += chunk.toString()
    const lines = pending.split('\n')
    pending = lines.pop() ?? ''
    for (const line of lines) onLine(line)
  }
}

/**
 * Runs one `stockplan` job command in a child process, so the chain's CPU work and memory never stall the
 * server's event loop (the scheduler must answer `/run` at once). Resolves with the command's summary line;
 * rejects with its error line. An abort sends SIGTERM (the command aborts its jobs), then SIGKILL after `graceMs`.
 */
export function runCliJob(
  args: readonly string[],
  env: Record<string, string>,
  ctx: ChildJobContext,
  graceMs = 5000,
): Promise<{ summary: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let lastError = ''
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    child.stderr.on(
      'data',
      lineReader((text) => {
        const line = parseChildLine(text)
        if (line.kind === 'step') void ctx.log(text)
        else if (line.kind === 'error') lastError = errorMessage(line)
      }),
    )
    let drained = false
    const drainPoll = setInterval(() => {
      if (!drained && ctx.draining()) {
        drained = true
        child.kill('SIGUSR2')
      }
    }, DRAIN_POLL_MS)
    let killTimer: NodeJS.Timeout | undefined
    const onAbort = (): void => {
      child.kill('SIGTERM')
      killTimer = setTimeout(() => child.kill('SIGKILL'), graceMs)
    }
    ctx.signal.addEventListener('abort', onAbort, { once: true })
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearInterval(drainPoll)
      if (killTimer) clearTimeout(killTimer)
      ctx.signal.removeEventListener('abort', onAbort)
      if (ctx.signal.aborted) {
        const reason: unknown = ctx.signal.reason
        reject(reason instanceof Error ? reason : new Error(String(reason ?? 'aborted')))
      } else if (code === 0) {
        resolve({ summary: summaryOf(stdout) })
      } else {
        reject(new Error(lastError || `stockplan ${args[0]} ended with ${signal ?? `exit code ${code}`}`))
      }
    })
  })
}
