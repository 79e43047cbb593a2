import { describe, expect, it } from 'vitest'
import { isIsoDate } from '../../src/domain/iso-date.js'
import { escapeMarkdown } from '../../src/domain/markdown.js'
import { parseExecutorParams } from '../../src/scheduler/params.js'

describe('isIsoDate', () => {
  it.each(['2026-11-20', '2024-02-29', '0001-01-01', '0099-12-31'])('accepts %s', (d) =>
    expect(isIsoDate(d)).toBe(true),
  )
  it.each([
    '0000-01-01',
    '2026-02-29',
    '2026-13-01',
    '2026-11-31',
    '2026-1-2',
    '20261120',
    '2026-11-20T00:00',
    ' 2026-11-20',
    '',
  ])('rejects %j', (d) => expect(isIsoDate(d)).toBe(false))
  it('is the rule the scheduler applies to tradeDate', () => {
    expect(parseExecutorParams('{"tradeDate":"0000-01-01"}').ok).toBe(false)
    expect(parseExecutorParams('{"tradeDate":"2026-11-20"}')).toEqual({ ok: true, args: { date: '2026-11-20' } })
  })
})

describe('escapeMarkdown', () => {
  it.each([
    ['<script>x</script>', '&lt;script&gt;x&lt;/script&gt;'],
    ['a | b', 'a \\| b'],
    ['[click](javascript:alert(1))', '\\[click\\](javascript:alert(1))'],
    ['![img](http://x/y.png)', '!\\[img\\](http://x/y.png)'],
    ['back\\slash|', 'back\\\\slash\\|'],
    ['two\nlines\r\n', 'two lines '],
    ['A&B', 'A&amp;B'],
  ])('escapes %j', (input, output) => expect(escapeMarkdown(input)).toBe(output))
})
