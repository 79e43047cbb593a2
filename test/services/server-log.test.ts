import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import pino from 'pino'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { BatchedStream } from '../../src/logger.js'

const run = promisify(execFile)

describe("the server's batched log stream", () => {
  let writes: string[]
  let log: pino.Logger
  beforeEach(() => {
    vi.useFakeTimers()
    writes = []
    log = pino({ level: 'info' }, new BatchedStream({ write: (s: string) => writes.push(s) }))
  })
  afterEach(() => {
    vi.useRealTimers()
  })
  const msgs = (chunk: string | undefined) =>
    (chunk ?? '')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { msg: string }).msg)

  it('writes info lines together once 20 ms have passed, in order', () => {
    log.info('a')
    log.info('b')
    expect(writes).toEqual([])
    vi.advanceTimersByTime(19)
    expect(writes).toEqual([])
    vi.advanceTimersByTime(1)
    expect(writes).toHaveLength(1)
    expect(msgs(writes[0])).toEqual(['a', 'b'])
  })

  it('writes a warning at once, after the lines pending before it', () => {
    log.info('served')
    log.warn('snapshot unusable')
    expect(writes).toHaveLength(1)
    expect(msgs(writes[0])).toEqual(['served', 'snapshot unusable'])
    vi.advanceTimersByTime(100)
    expect(writes).toHaveLength(1) // nothing left for the timer
  })

  it('writes at once when 12 KB are pending', () => {
    const big = 'x'.repeat(1000)
    let n = 0
    while (writes.length === 0 && n < 100) log.info({ big }, String(n++))
    expect(n).toBeGreaterThan(5)
    expect(n).toBeLessThanOrEqual(13)
    expect(msgs(writes[0])).toHaveLength(n)
  })
})

describe('a server process that exits', () => {
  it('writes the lines still pending', async () => {
    const script = [
      "const { createLogger } = await import('./src/logger.ts')",
      "const log = createLogger({ logLevel: 'info' })",
      "log.info('last words')",
      'process.exit(0)',
    ].join(';')
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script])
    expect(stdout).toMatch(/"msg":"last words"/)
  })
})
