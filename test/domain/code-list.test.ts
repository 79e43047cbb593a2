import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  codeListProblem,
  distinctCodes,
  MAX_CODES,
  mergeByCode,
  parseCodeItems,
  requestedCodes,
  splitCodes,
} from '../../src/domain/code-list.js'

describe('splitCodes', () => {
  it.each([
    [undefined, []],
    ['', []],
    [' , ,, ', []],
    ['600519', ['600519']],
    [' 600519 ,SH600519,, 600519.SH ', ['600519', 'SH600519', '600519.SH']],
    ['600519,600519', ['600519', '600519']],
    ['\t000001\n,x', ['000001', 'x']],
  ])('%j -> %j', (text, expected) => {
    expect(splitCodes(text)).toEqual(expected)
  })

  it('property: items are trimmed and non-empty, in order, duplicates kept', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 8 }), { maxLength: 20 }), (parts) => {
        const items = splitCodes(parts.join(','))
        expect(items).toEqual(
          parts
            .flatMap((p) => p.split(','))
            .map((p) => p.trim())
            .filter((p) => p !== ''),
        )
      }),
    )
  })
})

describe('requestedCodes', () => {
  it('takes codes over code when codes names anything', () => {
    expect(requestedCodes({ codes: '600519, 000001', code: '300750' })).toEqual(['600519', '000001'])
    expect(requestedCodes({ code: '300750' })).toEqual(['300750'])
    expect(requestedCodes({ code: '300750,600519' })).toEqual(['300750', '600519'])
    expect(requestedCodes({ codes: ' , ', code: '300750' })).toEqual(['300750'])
    expect(requestedCodes({ codes: '', code: '' })).toEqual([])
    expect(requestedCodes({})).toEqual([])
  })
})

describe('codeListProblem', () => {
  it('says empty for no item and too_many beyond the limit', () => {
    expect(codeListProblem([])?.kind).toBe('empty')
    expect(codeListProblem(['600519'])).toBeUndefined()
    expect(codeListProblem(Array(MAX_CODES).fill('600519'))).toBeUndefined()
    expect(codeListProblem(Array(MAX_CODES + 1).fill('600519'))).toEqual({
      kind: 'too_many',
      detail: `too many codes: ${MAX_CODES + 1} given, at most ${MAX_CODES} per request`,
    })
  })
})

describe('parseCodeItems and distinctCodes', () => {
  it('keeps every item in order with its code or its reason', () => {
    const items = parseCodeItems(['600519', 'bad', 'sz000001', '600519.SH'])
    expect(items).toEqual([
      { input: '600519', code: '600519.SH' },
      { input: 'bad', error: expect.stringContaining('"bad"') },
      { input: 'sz000001', code: '000001.SZ' },
      { input: '600519.SH', code: '600519.SH' },
    ])
    expect(distinctCodes(items)).toEqual(['600519.SH', '000001.SZ'])
  })
})

describe('mergeByCode', () => {
  it('merges inputs of one code keeping the first, and lists rejected inputs apart in order', () => {
    expect(mergeByCode(['SH600519', '12345', '600519', '000001', '600519.sh', 'x', '12345'])).toEqual({
      valid: [
        { input: 'SH600519', code: '600519.SH' },
        { input: '000001', code: '000001.SZ' },
      ],
      invalid: [
        { input: '12345', error: expect.any(String) },
        { input: 'x', error: expect.any(String) },
        { input: '12345', error: expect.any(String) },
      ],
    })
  })

  it('property: one valid item per code, each the first input of that code; every rejected input kept', () => {
    const symbols = ['600519', '000001', '300750', '688001', '830799']
    const item = fc.oneof(
      fc.tuple(fc.constantFrom(...symbols), fc.nat(2)).map(([s, form]) => {
        const exchange = s.startsWith('6') ? 'SH' : s.startsWith('8') ? 'BJ' : 'SZ'
        return [s, `${s}.${exchange}`, `${exchange.toLowerCase()}${s}`][form]!
      }),
      fc.constantFrom('12345', 'abc', '600519.SZ', '999999'),
    )
    fc.assert(
      fc.property(fc.array(item, { maxLength: 30 }), (inputs) => {
        const { valid, invalid } = mergeByCode(inputs)
        const parsed = parseCodeItems(inputs)
        expect(valid.map((v) => v.code)).toEqual(distinctCodes(parsed))
        for (const v of valid) expect(parsed.find((p) => 'code' in p && p.code === v.code)?.input).toBe(v.input)
        expect(invalid).toEqual(parsed.filter((p) => 'error' in p))
      }),
    )
  })
})
