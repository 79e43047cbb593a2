import { describe, expect, it } from 'vitest'
import { type ZipLayout, zipBars, zipRuns } from '../../src/jobs/import/bars-zip.js'

// daily: ts_code,trade_date,open,close,change,vol,amount -> columns code, trade_date, open, close, volume (e2), amount (e3)
const LAYOUT: ZipLayout = {
  dailyWidth: 7,
  adjWidth: 3,
  dailyKey: [0, 1],
  adjKey: [1, 0],
  runs: zipRuns([0, 1, 2, 3, null, 4, 5], [0, 0, 0, 0, 2, 3]),
  factor: 2,
}

async function* chunked(text: string, size: number): AsyncGenerator<Buffer> {
  const bytes = Buffer.from(text)
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size)
}

async function zip(daily: string, adj: string, size = 1 << 20): Promise<{ text: string; zipped: boolean }> {
  const zipped = zipBars(chunked(daily, size), chunked(adj, size), LAYOUT)
  const parts: Buffer[] = []
  for await (const chunk of zipped.chunks) parts.push(Buffer.from(chunk))
  return { text: Buffer.concat(parts).toString(), zipped: zipped.zipped() }
}

const DAILY = 'A.SZ,20240102,1.5,1.6,0.1,12.5,7\nA.SZ,20240103,1.6,,,3,\nB.SH,20240102,9,9.5,0,1e1,2\n'
const ADJ = '20240102,A.SZ,1\n20240103,A.SZ,1.25\n20240102,B.SH,3\n'

describe('zipRuns', () => {
  it('joins neighbouring fields and ends a run at each unit exponent', () => {
    expect(LAYOUT.runs).toEqual([
      { from: 0, to: 3, exponent: '' },
      { from: 5, to: 5, exponent: 'e2' },
      { from: 6, to: 6, exponent: 'e3' },
    ])
    expect(zipRuns([1, 0, null], [0, 0])).toEqual([
      { from: 1, to: 1, exponent: '' },
      { from: 0, to: 0, exponent: '' },
    ])
  })
})

describe('zipBars', () => {
  it('writes each bar in column order with its unit exponents and factor, not after an empty field', async () => {
    expect(await zip(DAILY, ADJ)).toEqual({
      text: 'A.SZ,20240102,1.5,1.6,12.5e2,7e3,1\nA.SZ,20240103,1.6,,3e2,,1.25\nB.SH,20240102,9,9.5,1e1e2,2e3,3\n',
      zipped: true,
    })
  })

  it.each([1, 2, 3, 7, 64])('reads records across chunks of %i bytes', async (size) => {
    expect(await zip(DAILY, ADJ, size)).toEqual(await zip(DAILY, ADJ))
  })

  it('takes last lines without a line feed', async () => {
    expect(await zip(DAILY.slice(0, -1), ADJ.slice(0, -1))).toEqual(await zip(DAILY, ADJ))
  })

  const bad: Array<[string, string, string]> = [
    ['a factor of another day', DAILY, ADJ.replace('20240103,A.SZ', '20240104,A.SZ')],
    ['a factor of another code', DAILY, ADJ.replace('20240102,B.SH', '20240102,C.SH')],
    ['a bar without its factor', DAILY, ADJ.split('\n').slice(0, 2).join('\n')],
    ['a factor left over', DAILY, `${ADJ}20240104,B.SH,3\n`],
    ['a repeated bar', `${DAILY}B.SH,20240102,9,9.5,0,1,2\n`, `${ADJ}20240102,B.SH,3\n`],
    [
      'days out of order',
      DAILY.replace('A.SZ,20240103', 'A.SZ,20240101'),
      ADJ.replace('20240103,A.SZ', '20240101,A.SZ'),
    ],
    ['codes out of order', DAILY.replaceAll('B.SH', 'A.SH'), ADJ.replaceAll('B.SH', 'A.SH')],
    ['a record of another width', DAILY.replace('9,9.5,0,', '9,9.5,'), ADJ],
  ]
  it.each(bad)('does not zip %s', async (_name, daily, adj) => {
    expect((await zip(daily, adj)).zipped).toBe(false)
  })
})
