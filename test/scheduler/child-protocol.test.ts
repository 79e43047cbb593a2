import { describe, expect, it } from 'vitest'
import { processEnvironment } from '../../src/config.js'
import {
  type ChildLine,
  formatErrorLine,
  formatStepLine,
  parseChildLine,
  summaryOf,
} from '../../src/scheduler/child-protocol.js'
import { runCliJob } from '../../src/scheduler/child-runner.js'
import { splitStep } from '../../src/scheduler/run-log.js'

describe('the child protocol between a job command and the scheduler', () => {
  it.each([
    ['build', 'start', undefined],
    ['plan', 'ok', 'plan 2026-11-20: 20 main, 10 observe, regime normal'],
    ['push-pool', 'skipped', 'no POOL_PUSH_URL'],
    ['chain', 'failed', 'build failed: no bars for 2026-11-20'],
  ])('a [%s] %s step line round-trips', (step, event, detail) => {
    const line = formatStepLine(step, event, detail)
    expect(parseChildLine(line)).toEqual({ kind: 'step', step, event, detail })
    // the run log files it under the same step
    expect(splitStep(line)).toEqual({ step, text: detail ? `${event} ${detail}` : event })
  })

  it.each([
    ['error', 'no tier scores for 2026-11-20: run `stockplan build --date 2026-11-20` first'],
    ['configuration error', 'POOL_TOP must be an integer, got "x"'],
  ] as const)('an %s line round-trips', (errorKind, message) => {
    expect(parseChildLine(formatErrorLine(errorKind, message))).toEqual({ kind: 'error', errorKind, message })
  })

  it('an error line stays one line, so no part of a multi-line message is lost', () => {
    const line = formatErrorLine('error', 'copy failed\n  at row 3\n')
    expect(line).toBe('error: copy failed at row 3 ')
    expect(parseChildLine(line)).toMatchObject({ kind: 'error', message: 'copy failed at row 3 ' })
  })

  it.each(['{"level":40,"msg":"slow query"}', 'Warning: something from node', 'errors: 3 (not the error prefix)', ''])(
    'any other stderr line is not protocol: %j',
    (text) => {
      expect(parseChildLine(text)).toEqual({ kind: 'other', text } satisfies ChildLine)
    },
  )

  it('the summary is the last non-empty stdout line', () => {
    expect(summaryOf('chain 2026-11-20: build ok\nplan 2026-11-20: 20 main\n\n')).toBe('plan 2026-11-20: 20 main')
    expect(summaryOf('')).toBe('')
  })

  it("a job process's configuration error reaches the run's failure message", async () => {
    const env = { ...processEnvironment(), POOL_TOP: 'many', LOG_LEVEL: 'silent' }
    const run = runCliJob(['build'], env, {
      log: () => undefined,
      signal: new AbortController().signal,
      draining: () => false,
    })
    await expect(run).rejects.toThrow('configuration error: POOL_TOP must be an integer, got "many"')
  })
})
