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
  return fd === 1 ? pino(options, stdoutPerTurn()) : pino(options, pino.destination({ dest: 2, sync: true }))
}

/** Where a batch of lines goes, and when: `write` gets the whole batch, `schedule` runs the flush later. */
export interface TurnBatchOutput {
  write(text: string): void
  schedule(flush: () => void): void
}

/**
 * A destination that collects the lines written during one turn of the event loop and hands them on in one write at
 * its end (`setImmediate`), in order. Under load a server writes one access line per request: handed on one by one,
 * each line costs a `write` of its own (sonic-boom synchronous) or a measure of sonic-boom's whole pending buffer
 * (asynchronous: `Buffer.byteLength` of up to 16 KB per line), about 6 µs of CPU per request either way
 * (bench/cached-plan.bench.ts). `flushSync` hands on what waits now.
 */
export function turnBatched(output: TurnBatchOutput): pino.DestinationStream & { flushSync(): void } {
  let pending = ''
  const flushSync = (): void => {
    if (pending === '') return
    const text = pending
    pending = ''
    output.write(text)
  }
  return {
    write(line: string) {
      if (pending === '') output.schedule(flushSync)
      pending += line
    },
    flushSync,
  }
}

let stdoutBatch: ReturnType<typeof turnBatched> | undefined

/**
 * The server's NDJSON stream on stdout, one per process (every logger on fd 1 shares it, so lines keep their order):
 * one synchronous write per loop turn, through sonic-boom (which retries a full pipe), and what waits is written when
 * the process exits. Synchronous, as node's own stdout is on Linux: a line is never lost or cut at exit (an
 * asynchronous write still in libuv's pool when the process exits can be), and a reader of stdout that falls behind
 * slows the server down instead of letting its buffer grow without bound.
 */
function stdoutPerTurn(): pino.DestinationStream {
  if (stdoutBatch) return stdoutBatch
  const out = pino.destination({ dest: 1, sync: true })
  const batch = turnBatched({ write: (text) => void out.write(text), schedule: (flush) => setImmediate(flush) })
  process.on('exit', batch.flushSync)
  stdoutBatch = batch
  return batch
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
