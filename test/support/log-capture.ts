import { Writable } from 'node:stream'
import pino from 'pino'
import type { Logger } from '../../src/logger.js'

export interface CapturedLog {
  readonly log: Logger
  readonly lines: Array<Record<string, unknown>>
  readonly text: () => string
}

/** A real pino logger whose lines land in an array, for asserting what the service logged. */
export function captureLog(level: pino.Level = 'debug'): CapturedLog {
  const lines: Array<Record<string, unknown>> = []
  const raw: string[] = []
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) {
        if (line.trim() === '') continue
        raw.push(line)
        lines.push(JSON.parse(line) as Record<string, unknown>)
      }
      done()
    },
  })
  return { log: pino({ level }, stream), lines, text: () => raw.join('\n') }
}
