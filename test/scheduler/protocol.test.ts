import { describe, expect, it } from 'vitest'
import { adminUrl } from '../../src/scheduler/admin-client.js'
import { createJobSlots } from '../../src/scheduler/job-slots.js'
import { retryDelay } from '../../src/scheduler/outbox.js'
import { parseExecutorParams } from '../../src/scheduler/params.js'
import { parseBody, readLogParam, readTriggerParam, resolveStrategy } from '../../src/scheduler/protocol.js'
import { formatLogLine, formatLogTime, splitStep, textLines, toLogResult } from '../../src/scheduler/run-log.js'
import { tokenMatches } from '../../src/scheduler/token.js'

describe('tokenMatches', () => {
  it('accepts only the exact token, whatever the lengths', () => {
    expect(tokenMatches('secret', 'secret')).toBe(true)
    expect(tokenMatches('secreT', 'secret')).toBe(false)
    expect(tokenMatches('secret-and-more', 'secret')).toBe(false)
    expect(tokenMatches('', 'secret')).toBe(false)
    expect(tokenMatches(undefined, 'secret')).toBe(false)
    expect(tokenMatches(['secret', 'secret'], 'secret')).toBe(false)
  })
  it('never allows anything against an empty configured token', () => {
    expect(tokenMatches('', '')).toBe(false)
  })
})

describe('parseBody', () => {
  it.each([
    [undefined, undefined],
    ['', undefined],
    ['   ', undefined],
    ['""', ''],
    ['{"jobId":1}', { jobId: 1 }],
  ])('reads %j leniently', (raw, value) => {
    expect(parseBody(raw)).toEqual({ ok: true, value })
  })
  it('reports JSON that does not parse', () => {
    const parsed = parseBody('{jobId:')
    expect(parsed.ok).toBe(false)
  })
})

describe('readTriggerParam and friends', () => {
  it('takes numbers or digit strings and drops a non-positive timeout', () => {
    const read = readTriggerParam({
      jobId: '7',
      logId: 9,
      executorTimeout: -5,
      executorHandler: 'plan',
      glueType: 'BEAN',
    })
    expect(read).toMatchObject({ ok: true, value: { jobId: 7, logId: 9, executorTimeout: 0, executorParams: '' } })
  })
  it('needs jobId and logId', () => {
    expect(readTriggerParam({ logId: 1 }).ok).toBe(false)
    expect(readTriggerParam({ jobId: 1 }).ok).toBe(false)
    expect(readTriggerParam('x').ok).toBe(false)
  })
  it('starts the log at line 1 when fromLineNum is missing or below 1', () => {
    expect(readLogParam({ logId: 3 })).toEqual({ ok: true, value: { logId: 3, fromLineNum: 1 } })
    expect(readLogParam({ logId: 3, fromLineNum: 0 })).toEqual({ ok: true, value: { logId: 3, fromLineNum: 1 } })
    expect(readLogParam({ logId: 3, fromLineNum: 4, logDateTim: 1 })).toEqual({
      ok: true,
      value: { logId: 3, fromLineNum: 4 },
    })
  })
  it('treats an unknown or missing block strategy as serial', () => {
    expect(resolveStrategy(undefined)).toBe('SERIAL_EXECUTION')
    expect(resolveStrategy('SOMETHING')).toBe('SERIAL_EXECUTION')
    expect(resolveStrategy('COVER_EARLY')).toBe('COVER_EARLY')
    expect(resolveStrategy('DISCARD_LATER')).toBe('DISCARD_LATER')
  })
})

describe('parseExecutorParams', () => {
  it.each([
    ['', {}],
    ['  ', {}],
    ['{}', {}],
    ['{"tradeDate":""}', {}],
    ['{"tradeDate":null}', {}],
    ['{"tradeDate":"2024-06-03"}', { date: '2024-06-03' }],
    [' 2024-02-29 ', { date: '2024-02-29' }],
  ])('reads %j', (raw, args) => {
    expect(parseExecutorParams(raw)).toEqual({ ok: true, args })
  })
  it.each([
    ['{"tradeDate":"2024-02-30"}', /real YYYY-MM-DD date/],
    ['{"tradeDate":20240603}', /real YYYY-MM-DD date/],
    ['{"tradedate":"2024-06-03"}', /unknown key "tradedate"/],
    ['2023-02-29', /not a real date/],
    ['tradeDate=2024-06-03', /not JSON/],
    ['[1]', /expected/],
  ])('rejects %j with a clear message', (raw, message) => {
    const parsed = parseExecutorParams(raw)
    expect(parsed.ok).toBe(false)
    if (!parsed.ok) expect(parsed.error).toMatch(message)
  })
})

describe('run log formatting', () => {
  it('prints China Standard Time', () => {
    expect(formatLogTime(new Date('2024-06-03T00:30:01.999Z'))).toBe('2024-06-03 08:30:01')
    expect(formatLogLine({ loggedAt: new Date('2024-06-02T16:00:00Z'), step: 'build', text: 'ok' })).toBe(
      '2024-06-03 00:00:00 [build] ok',
    )
  })
  it('splits a step tag and line breaks', () => {
    expect(splitStep('[push-pool] sent 20')).toEqual({ step: 'push-pool', text: 'sent 20' })
    expect(splitStep('no tag [x]')).toEqual({ step: undefined, text: 'no tag [x]' })
    expect(textLines('a\r\nb\nc\n')).toEqual(['a', 'b', 'c'])
  })
  it('answers an unknown log as the Java executor does', () => {
    expect(toLogResult(5, undefined)).toEqual({
      fromLineNum: 5,
      toLineNum: 0,
      logContent: 'readLog fail, logFile not exists',
      isEnd: true,
    })
  })
})

describe('retryDelay', () => {
  it('walks the schedule and then repeats its last step', () => {
    const delays = [1000, 5000, 30000]
    expect([1, 2, 3, 4, 10].map((n) => retryDelay(delays, n))).toEqual([1000, 5000, 30000, 30000, 30000])
  })
})

describe('adminUrl', () => {
  it('appends api/<name> with or without a trailing slash', () => {
    expect(adminUrl('http://a:8080/xxl-job-admin', 'callback')).toBe('http://a:8080/xxl-job-admin/api/callback')
    expect(adminUrl('http://a:8080/', 'registry')).toBe('http://a:8080/api/registry')
  })
})

describe('job slots', () => {
  it('queues serially, discards later and covers early', () => {
    const slots = createJobSlots<string>()
    expect(slots.admit(1, 'a', 'SERIAL_EXECUTION').kind).toBe('queued')
    expect(slots.next(1)).toBe('a')
    slots.admit(1, 'b', 'SERIAL_EXECUTION')
    expect(slots.next(1)).toBeUndefined()
    expect(slots.admit(1, 'c', 'DISCARD_LATER')).toEqual({ kind: 'discard' })
    expect(slots.admit(2, 'x', 'DISCARD_LATER').kind).toBe('queued')
    expect(slots.counts()).toEqual({ running: 1, queued: 2 })
    expect(slots.admit(1, 'd', 'COVER_EARLY')).toEqual({ kind: 'queued', covered: { running: 'a', queued: ['b'] } })
    slots.release(1, 'a')
    expect(slots.next(1)).toBe('d')
    expect(slots.takeQueue(2)).toEqual(['x'])
    slots.release(1, 'd')
    expect(slots.busy(1)).toBe(false)
    expect(slots.counts()).toEqual({ running: 0, queued: 0 })
  })
})
