/** Stock code parsing: `600519.SH`, `SH600519` and `600519` (any case, trimmed) all become `600519.SH`. */

export type Exchange = 'SH' | 'SZ' | 'BJ'
export type Board = 'main' | 'star' | 'chinext' | 'bse' | 'b_share'

export interface ParsedCode {
  readonly ok: true
  readonly code: string
  readonly symbol: string
  readonly exchange: Exchange
  readonly board: Board
}

export interface RejectedCode {
  readonly ok: false
  readonly reason: string
}

// Longest prefixes first: 920 must win before any shorter rule could.
const PREFIXES: ReadonlyArray<readonly [string, Exchange, Board]> = [
  ['600', 'SH', 'main'],
  ['601', 'SH', 'main'],
  ['603', 'SH', 'main'],
  ['605', 'SH', 'main'],
  ['688', 'SH', 'star'],
  ['689', 'SH', 'star'],
  ['900', 'SH', 'b_share'],
  ['000', 'SZ', 'main'],
  ['001', 'SZ', 'main'],
  ['002', 'SZ', 'main'],
  ['003', 'SZ', 'main'],
  ['300', 'SZ', 'chinext'],
  ['301', 'SZ', 'chinext'],
  ['302', 'SZ', 'chinext'],
  ['200', 'SZ', 'b_share'],
  ['920', 'BJ', 'bse'],
  ['43', 'BJ', 'bse'],
  ['83', 'BJ', 'bse'],
  ['87', 'BJ', 'bse'],
  ['88', 'BJ', 'bse'],
]

const SUFFIX_FORM = /^(\d+)\.([A-Z]+)$/
const PREFIX_FORM = /^([A-Z]+)\.?(\d+)$/

function classify(symbol: string): readonly [Exchange, Board] | undefined {
  const rule = PREFIXES.find(([prefix]) => symbol.startsWith(prefix))
  return rule ? [rule[1], rule[2]] : undefined
}

function reject(reason: string): RejectedCode {
  return { ok: false, reason }
}

function checkSymbol(symbol: string, input: string): RejectedCode | undefined {
  if (!/^\d+$/.test(symbol)) return reject(`"${input}" is not a stock code: the symbol must be 6 digits`)
  if (symbol.length !== 6) return reject(`"${input}" is not a stock code: ${symbol.length} digits, a symbol has 6`)
  return undefined
}

export function parseCode(input: string): ParsedCode | RejectedCode {
  const text = input.trim().toUpperCase()
  if (text === '') return reject('empty code')
  let symbol: string
  let stated: string | undefined
  const suffix = SUFFIX_FORM.exec(text)
  const prefix = PREFIX_FORM.exec(text)
  if (/^\d+$/.test(text)) {
    symbol = text
  } else if (suffix) {
    symbol = suffix[1]!
    stated = suffix[2]!
  } else if (prefix) {
    symbol = prefix[2]!
    stated = prefix[1]!
  } else if (/^[A-Z]{2}\.?\d+\.[A-Z]+$/.test(text)) {
    return reject(`"${input}" has both an exchange prefix and a suffix; use one form, e.g. 600519.SH`)
  } else {
    return reject(`"${input}" is not a stock code: use 600519.SH, SH600519 or 600519`)
  }
  const bad = checkSymbol(symbol, input)
  if (bad) return bad
  if (stated !== undefined && !['SH', 'SZ', 'BJ'].includes(stated)) {
    return reject(`"${input}" names an unknown exchange "${stated}"; use SH, SZ or BJ`)
  }
  const classified = classify(symbol)
  if (!classified)
    return reject(`"${input}" is not a stock code: no A-share board uses the prefix ${symbol.slice(0, 3)}`)
  const [exchange, board] = classified
  if (stated !== undefined && stated !== exchange) {
    return reject(`"${input}" says ${stated} but ${symbol} trades on ${exchange}`)
  }
  return { ok: true, code: `${symbol}.${exchange}`, symbol, exchange, board }
}

/** The canonical code or undefined; for inputs that are already trusted (imports report their own errors). */
export function normaliseCode(input: string): string | undefined {
  const parsed = parseCode(input)
  return parsed.ok ? parsed.code : undefined
}

const boards = new Map<string, Board | undefined>()
/** Codes remembered by `boardOf`: the whole market, several times over, and never more. */
const REMEMBERED_BOARDS = 20_000

/** The board of a code; remembered, since a build asks it of every stock on every screen. */
export function boardOf(code: string): Board | undefined {
  if (boards.has(code)) return boards.get(code)
  const parsed = parseCode(code)
  const board = parsed.ok ? parsed.board : undefined
  if (boards.size >= REMEMBERED_BOARDS) boards.clear()
  boards.set(code, board)
  return board
}

/** A board for a prefix no rule knows yet, from the exchange's families of codes (SZ 30x ChiNext, SH 68x STAR). */
function boardByFamily(symbol: string, exchange: Exchange): Board {
  if (exchange === 'BJ') return 'bse'
  if (exchange === 'SH') return symbol.startsWith('68') ? 'star' : symbol.startsWith('9') ? 'b_share' : 'main'
  return symbol.startsWith('30') ? 'chinext' : symbol.startsWith('2') ? 'b_share' : 'main'
}

/**
 * A tushare `ts_code` (`600519.SH`): the exchange is the suffix, so a prefix no rule lists yet still imports,
 * its board taken from the exchange's code families; a known prefix must agree with the suffix.
 */
export function parseTsCode(input: string): ParsedCode | RejectedCode {
  const text = input.trim().toUpperCase()
  const suffix = SUFFIX_FORM.exec(text)
  if (!suffix) return reject(`"${input}" is not a ts_code: use 6 digits and .SH, .SZ or .BJ, e.g. 600519.SH`)
  const symbol = suffix[1]!
  const stated = suffix[2]!
  const bad = checkSymbol(symbol, input)
  if (bad) return bad
  if (stated !== 'SH' && stated !== 'SZ' && stated !== 'BJ') {
    return reject(`"${input}" names an unknown exchange "${stated}"; use SH, SZ or BJ`)
  }
  const classified = classify(symbol)
  if (classified) return parseCode(text)
  return { ok: true, code: `${symbol}.${stated}`, symbol, exchange: stated, board: boardByFamily(symbol, stated) }
}
