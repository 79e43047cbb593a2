// Sorting, filtering and CSV export of the plan tables: what is on screen is what is exported.

/** Rows sorted by `value(row)` (nulls last either way); the list order when `key` is empty. */
export function sortRows(rows, value, dir) {
  if (!value) return rows
  const sign = dir === 'desc' ? -1 : 1
  return rows
    .map((row, i) => ({ row, i, v: value(row) }))
    .sort((a, b) => {
      const missingA = a.v === null || a.v === undefined
      const missingB = b.v === null || b.v === undefined
      if (missingA || missingB) return missingA === missingB ? a.i - b.i : missingA ? 1 : -1
      if (a.v === b.v) return a.i - b.i
      if (typeof a.v === 'string' || typeof b.v === 'string')
        return sign * String(a.v).localeCompare(String(b.v), 'zh-CN')
      return sign * (a.v - b.v)
    })
    .map((x) => x.row)
}

/** Whether every word of `query` (space separated, case-insensitive) occurs in one of `fields`. */
export function matchesFilter(fields, query) {
  const words = String(query ?? '')
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
  if (words.length === 0) return true
  const hay = fields
    .filter((f) => f !== null && f !== undefined)
    .join(' ')
    .toLowerCase()
  return words.every((w) => hay.includes(w))
}

// a number as the table shows it: -1.25, +2.35%, 1e-3 (a spreadsheet reads these as numbers, and runs nothing)
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?%?$/
// what a spreadsheet may take as the start of a formula (OWASP's CSV injection guidance), with the full-width,
// small and minus-sign forms Excel and WPS fold into them, and the control characters that end or split a cell
const FORMULA_START = /^[=+\-@\t\r\n\0＝＋－＠\u2212﹦﹢﹣﹫]/u
// what a spreadsheet skips before it looks for a formula: white space (NBSP included) and format characters
// (zero-width space, joiners, byte-order mark, direction marks)
const LEADING_SKIPPED = /^[\s\p{Cf}]+/u

/**
 * A cell as a spreadsheet should open it: as data. Text that begins like a formula (`=`, `+`, `-`, `@`, their
 * full-width forms, U+2212, a tab, a carriage return, a line feed, NUL), also after leading white space or format
 * characters, gets a leading apostrophe, so Excel and WPS show it instead of running it; a number stays as is.
 */
export function inertCell(cell) {
  const text = String(cell ?? '')
  if (typeof cell === 'number' || NUMBER.test(text)) return text
  const formulaLike = FORMULA_START.test(text) || FORMULA_START.test(text.replace(LEADING_SKIPPED, ''))
  return formulaLike ? `'${text}` : text
}

const quote = (text) => (/[",\r\n\t]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text)

/**
 * RFC 4180 CSV with a UTF-8 byte-order mark and CRLF line ends: Excel then reads Chinese text correctly. Every cell
 * is made inert first (`inertCell`): a name or theme from an imported file may be a formula.
 */
export function csvText(header, rows) {
  return `\uFEFF${[header, ...rows].map((r) => r.map((cell) => quote(inertCell(cell))).join(',')).join('\r\n')}\r\n`
}
