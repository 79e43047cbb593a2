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

const quote = (cell) => {
  const text = String(cell ?? '')
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

/** RFC 4180 CSV with a UTF-8 byte-order mark and CRLF line ends: Excel then reads Chinese text correctly. */
export function csvText(header, rows) {
  return `\uFEFF${[header, ...rows].map((r) => r.map(quote).join(',')).join('\r\n')}\r\n`
}
