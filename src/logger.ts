import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import pino, { type Logger } from 'pino'
import type { Config } from './config.js'

export type { Logger }

const REDACT = {
  paths: ['req.headers["xxl-job-access-token"]', 'req.headers.authorization', 'headers["xxl-job-access-token"]'],
  censor: '[redacted]',
}

const PRETTY = { singleLine: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname' }

/**
 * NDJSON to `fd` (1 = stdout, the server's stream; 2 = stderr, a CLI command's), or human lines when that stream
 * is a terminal. A CLI command pretty-prints synchronously in its own thread, so its logs interleave in order with
 * its step markers and progress. The server never formats for people in the serving process: on a terminal it
 * writes NDJSON to a `pino-pretty` process of its own (`prettyProcess`). The scheduler token never reaches a log
 * line. With `destination`, NDJSON to that stream (tests).
 */
export function createLogger(
  config: Pick<Config, 'logLevel'>,
  destination?: pino.DestinationStream,
  fd: 1 | 2 = 1,
): Logger {
  const options: pino.LoggerOptions = { level: config.logLevel, redact: REDACT }
  if (destination) return pino(options, destination)
  const stream = fd === 1 ? process.stdout : process.stderr
  if (stream.isTTY && config.logLevel !== 'silent') {
    if (fd === 1) return pino(options, prettyProcess())
    // loaded only on a terminal: it costs start-up time a pipe does not need
    const pretty = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty')
    return pino(options, pretty.build({ ...PRETTY, destination: fd, sync: true }))
  }
  if (fd === 2) return pino(options, pino.destination({ dest: 2, sync: true }))
  return pino(options, new BatchedStream(pino.destination({ dest: 1, sync: true })))
}

/** pino's level numbers: a `warn` or worse is written at once. */
const WARN = 40
/** Lines below `warn` wait at most this long, or until this much is pending, and go out in one write. */
const BATCH_MS = 20
const BATCH_BYTES = 12 * 1024

/** Streams with lines not written yet, written by one exit handler. */
const unwritten = new Set<{ flush(): void }>()
process.on('exit', () => {
  for (const stream of unwritten) stream.flush()
})

/**
 * The server's NDJSON stream. Lines below `warn` (the access lines) are gathered for at most 20 ms (or 12 KB)
 * and written together: one system call for many requests instead of one each. A warning or an error is
 * written at once, after whatever was pending, so the order of lines holds. What is pending at exit is written
 * by the exit handler, so only a kill (SIGKILL) loses lines: at most the last 20 ms of them.
 */
export class BatchedStream {
  /** Asks pino to set `lastLevel` before each write. */
  readonly [pino.symbols.needsMetadataGsym] = true as const
  lastLevel = 0
  #pending = ''
  #timer: NodeJS.Timeout | undefined
  readonly #out: pino.DestinationStream

  constructor(out: pino.DestinationStream) {
    this.#out = out
  }

  write(line: string): void {
    this.#pending += line
    if (this.lastLevel >= WARN || this.#pending.length >= BATCH_BYTES) {
      this.flush()
      return
    }
    unwritten.add(this)
    if (!this.#timer) {
      this.#timer = setTimeout(this.#flushLater, BATCH_MS)
      this.#timer.unref()
    }
  }

  readonly #flushLater = (): void => {
    this.#timer = undefined
    this.flush()
  }

  flush(done?: (err?: Error) => void): void {
    unwritten.delete(this)
    if (this.#timer) clearTimeout(this.#timer)
    this.#timer = undefined
    if (this.#pending !== '') {
      const lines = this.#pending
      this.#pending = ''
      this.#out.write(lines)
    }
    done?.()
  }
}

/**
 * A `pino-pretty` process writing to this terminal, fed NDJSON through a pipe: formatting a line costs the
 * serving process nothing but the pipe write. It runs in its own process group, so Ctrl-C stops the server
 * and not the printer; it ends when the server's end of the pipe closes, after printing the last lines.
 */
function prettyProcess(): NodeJS.WritableStream {
  const bin = createRequire(import.meta.url).resolve('pino-pretty/bin.js')
  const args = ['--singleLine', '--translateTime', PRETTY.translateTime, '--ignore', PRETTY.ignore]
  const child = spawn(process.execPath, [bin, ...args], { stdio: ['pipe', 'inherit', 'inherit'], detached: true })
  child.unref()
  const pipe = child.stdin
  // a printer that died takes nothing down with it: the lines are dropped
  pipe.on('error', () => undefined)
  ;(pipe as unknown as { unref?: () => void }).unref?.()
  return pipe
}
