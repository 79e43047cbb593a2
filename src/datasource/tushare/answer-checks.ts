/**
 * What an answer must be before anything of it is written: exactly the columns asked for, compared as the bundle
 * import reads a header (trimmed, lower case), and only rows of what was asked (the day, codes, announcement date,
 * period, exchange, date range), none repeating a key. Every check runs on every answer with rows: a column the
 * check needs is always there, because the columns were checked first.
 */
import { ROW_MATCHES, specOf } from './interfaces.js'
import { shownText } from './shown-text.js'
import { TushareError, type TushareTable } from './tushare-error.js'

const asRead = (name: string): string => name.trim().toLowerCase()

const refused = (api: string, why: string) =>
  new TushareError(api, 'answer', `tushare ${api}: ${why}: the answer is refused`)

/** The answer's table with its columns named as the import reads them; refused unless they are the ones asked for. */
export function checkColumns(api: string, fields: unknown, items: unknown): TushareTable {
  if (!Array.isArray(fields) || !fields.every((f) => typeof f === 'string') || !Array.isArray(items)) {
    throw refused(api, 'its data is not a table of named fields and rows')
  }
  if (fields.length === 0 && items.length === 0) return { fields: [], items: [] }
  const asked = specOf(api).fields
  const names = fields.map(asRead)
  const same =
    names.length === asked.length && new Set(names).size === names.length && names.every((n) => asked.includes(n))
  if (!same) {
    const shown = shownText(fields.map((f) => JSON.stringify(f)).join(','), 300)
    throw refused(api, `its columns (${shown}) are not the ${asked.length} asked for (${asked.join(',')})`)
  }
  for (const row of items) {
    if (!Array.isArray(row) || row.length !== names.length) {
      const length = Array.isArray(row) ? `${row.length} values` : 'no list of values'
      throw refused(api, `a row has ${length} for ${names.length} columns`)
    }
  }
  return { fields: names, items: items as unknown[][] }
}

/** Refuses rows outside what was asked (another day, code, announcement date, period) and rows that repeat a key. */
export function checkRows(api: string, params: Record<string, string>, table: TushareTable): void {
  if (table.items.length === 0) return
  const at = (name: string): number => {
    const i = table.fields.indexOf(name)
    if (i < 0) throw refused(api, `it has no ${name} column to check its rows by`)
    return i
  }
  const refuse = (row: readonly unknown[], why: string) => {
    const shown = table.fields
      .map((f, i) => `${f}=${shownText(row[i], 40)}`)
      .slice(0, 4)
      .join(' ')
    throw refused(api, `a row ${why} (${shown})`)
  }
  const checks: ((row: readonly unknown[]) => void)[] = []
  for (const [param, column] of Object.entries(ROW_MATCHES)) {
    const wanted = params[param]
    if (wanted === undefined) continue
    const i = at(column)
    checks.push((row) => {
      if (String(row[i]) !== wanted) {
        refuse(row, `has ${column} ${shownText(row[i], 40)}, not the ${wanted} asked for`)
      }
    })
  }
  if (params.ts_code !== undefined) {
    const code = at('ts_code')
    const codes = new Set(params.ts_code.split(','))
    checks.push((row) => {
      if (!codes.has(String(row[code]))) refuse(row, `is of ${shownText(row[code], 40)}, a code not asked for`)
    })
  }
  if (params.start_date !== undefined || params.end_date !== undefined) {
    const date = at(api === 'trade_cal' ? 'cal_date' : 'trade_date')
    const [start, end] = [params.start_date ?? '', params.end_date ?? '99999999']
    checks.push((row) => {
      const d = String(row[date])
      if (d < start || d > end) refuse(row, `is dated ${shownText(d, 40)}, outside ${start}..${end} asked for`)
    })
  }
  const key = specOf(api).key
  const keyColumns = key.map(at)
  const seen = new Set<string>()
  for (const row of table.items) {
    for (const check of checks) check(row)
    if (keyColumns.length === 0) continue
    // as the import will read them: 20240108 and ' 20240108' are one key there
    const value = keyColumns.map((i) => String(row[i]).trim()).join('\u0000')
    if (seen.has(value)) refuse(row, `repeats the key (${key.join(', ')}) of an earlier row`)
    seen.add(value)
  }
}
