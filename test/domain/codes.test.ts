import { describe, expect, it } from 'vitest'
import { parseCode } from '../../src/domain/codes.js'

describe('parseCode', () => {
  it.each([
    ['600519.SH', '600519.SH', 'main'],
    ['600519', '600519.SH', 'main'],
    ['SH600519', '600519.SH', 'main'],
    ['sh600519', '600519.SH', 'main'],
    ['600519.sh', '600519.SH', 'main'],
    ['  600519  ', '600519.SH', 'main'],
    [' Sz000001 ', '000001.SZ', 'main'],
    ['SH.600519', '600519.SH', 'main'],
    ['601318', '601318.SH', 'main'],
    ['603288', '603288.SH', 'main'],
    ['605499', '605499.SH', 'main'],
    ['688981', '688981.SH', 'star'],
    ['689009', '689009.SH', 'star'],
    ['900901', '900901.SH', 'b_share'],
    ['000001', '000001.SZ', 'main'],
    ['001979', '001979.SZ', 'main'],
    ['002594', '002594.SZ', 'main'],
    ['003816', '003816.SZ', 'main'],
    ['300750', '300750.SZ', 'chinext'],
    ['301269.SZ', '301269.SZ', 'chinext'],
    ['302132.SZ', '302132.SZ', 'chinext'],
    ['302132', '302132.SZ', 'chinext'],
    ['200596', '200596.SZ', 'b_share'],
    ['920799', '920799.BJ', 'bse'],
    ['BJ920799', '920799.BJ', 'bse'],
    ['430047', '430047.BJ', 'bse'],
    ['830799.BJ', '830799.BJ', 'bse'],
    ['872925', '872925.BJ', 'bse'],
    ['889999', '889999.BJ', 'bse'],
  ])('accepts %j as %s (%s)', (input, code, board) => {
    const parsed = parseCode(input)
    expect(parsed).toMatchObject({ ok: true, code, board })
  })

  it.each([
    ['', /empty/],
    ['   ', /empty/],
    ['6005190', /7 digits/],
    ['60051', /5 digits/],
    ['60051A', /not a stock code/],
    ['ABCDEF', /not a stock code/],
    ['600519.SZ', /says SZ but 600519 trades on SH/],
    ['000001.SH', /says SH but 000001 trades on SZ/],
    ['SZ600519', /says SZ but 600519 trades on SH/],
    ['920799.SH', /trades on BJ/],
    ['SH600519.SH', /both an exchange prefix and a suffix/],
    ['600519.HK', /unknown exchange "HK"/],
    ['700000', /no A-share board uses the prefix 700/],
    ['399001', /no A-share board uses the prefix 399/],
    ['600519.', /not a stock code/],
    ['6005 19', /not a stock code/],
    ['<script>', /not a stock code/],
  ])('rejects %j with a reason', (input, reason) => {
    const parsed = parseCode(input)
    expect(parsed.ok).toBe(false)
    if (!parsed.ok) expect(parsed.reason).toMatch(reason)
  })
})
