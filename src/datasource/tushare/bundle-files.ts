/** What tushare answered, as the files of a tushare bundle (`<api>.csv`, its fields as the header). */
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { TushareTable } from './client.js'

function cell(value: unknown): string {
  if (value === null || value === undefined) return ''
  const text = String(value)
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

export async function writeBundleFile(dir: string, api: string, table: TushareTable): Promise<void> {
  const lines = [table.fields.map(cell).join(',')]
  for (const item of table.items) lines.push(item.map(cell).join(','))
  await writeFile(path.join(dir, `${api}.csv`), `${lines.join('\n')}\n`)
}
