import { createRequire } from 'node:module'
import pino, { type Logger } from 'pino'
import type { Config } from './config.js'

export type { Logger }

const REDACT = {
  paths: ['req.headers["xxl-job-access-token"]', 'req.headers.authorization', 'headers["xxl-job-access-token"]'],
  censor: '[redacted]',
}

/**
 * NDJSON to `fd` (1 = stdout, the server's stream; 2 = stderr, a CLI command's), or, when that stream is a
 * terminal, human lines written synchronously in this thread, so they interleave in order with the command's
 * own step markers and progress (pino's transport worker would deliver them later). The scheduler token
 * never reaches a log line. With `destination`, NDJSON to that stream (tests).
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
    // loaded only on a terminal: it costs start-up time a pipe does not need
    const pretty = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty')
    return pino(
      options,
      pretty.build({
        destination: fd,
        sync: true,
        singleLine: true,
        translateTime: 'SYS:HH:MM:ss',
        ignore: 'pid,hostname',
      }),
    )
  }
  return fd === 1 ? pino(options) : pino(options, pino.destination({ dest: 2, sync: true }))
}
