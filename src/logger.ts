import pino, { type Logger } from 'pino'
import type { Config } from './config.js'

export type { Logger }

/** NDJSON on stdout; pretty only when stdout is a terminal. The scheduler token never reaches a log line. */
export function createLogger(config: Pick<Config, 'logLevel'>, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level: config.logLevel,
    redact: {
      paths: ['req.headers["xxl-job-access-token"]', 'req.headers.authorization', 'headers["xxl-job-access-token"]'],
      censor: '[redacted]',
    },
  }
  if (destination) return pino(options, destination)
  if (process.stdout.isTTY) {
    return pino({ ...options, transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l' } } })
  }
  return pino(options)
}
