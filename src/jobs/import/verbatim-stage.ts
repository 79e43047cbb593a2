/**
 * Stages a CSV file by handing its bytes to COPY (storage/verbatim-staging.ts): node's row plan decides the
 * columns and each field's grammar (checked on the bytes as they stream, verbatim-source.ts), and its converters
 * judge the distinct values of text columns (codes). Files it cannot take so (a header node refuses, skipped,
 * derived or boolean columns, a record that is not plain) are left to the row by row staging, which reports
 * their bad rows.
 */
import { type ColumnSpec, type FileSpec, sourceOf } from '../../storage/csv-formats.js'
import type { ImportTransaction } from '../../storage/import.repository.js'
import type { Cell } from '../../storage/import-staging.js'
import { type VerbatimOutcome, verbatimBlocker } from '../../storage/verbatim-staging.js'
import type { Progress } from '../progress.js'
import { decimalShift, planRows, RowError, type RowPlan } from './row-parser.js'
import { type FieldRule, readVerbatimHeader, verbatimData } from './verbatim-source.js'

export interface VerbatimInput {
  readonly spec: FileSpec
  readonly path: string
  readonly size: number
}

export async function stageFileVerbatim(
  tx: ImportTransaction,
  file: VerbatimInput,
  signal: AbortSignal,
  progress: Progress,
): Promise<VerbatimOutcome> {
  const { spec } = file
  if (spec.skipRows) return { staged: false, why: 'rows skipped by value' }
  if (spec.columns.some((c) => c.derive !== undefined)) return { staged: false, why: 'columns derived from the code' }
  const header = await readVerbatimHeader(file.path)
  if (!header) return { staged: false, why: 'no plain header on line 1' }
  let plan: RowPlan
  try {
    plan = planRows(spec, header.fields)
  } catch (err) {
    if (err instanceof RowError) return { staged: false, why: 'a header node refuses' }
    throw err
  }
  const names = header.fields.map((name) => name.trim().toLowerCase())
  const fields = names.map((name) => {
    const index = plan.columns.findIndex((c) => sourceOf(c) === name)
    return index < 0 ? null : index
  })
  const shifts: number[] = []
  for (const column of plan.columns) {
    const shift = column.type === 'number' ? decimalShift(column) : 0
    if (shift === undefined) return { staged: false, why: `the unit factor of ${column.name} is no power of ten` }
    shifts.push(shift)
  }
  const blocker = verbatimBlocker(plan.columns, fields)
  if (blocker) return { staged: false, why: blocker }
  const rules: FieldRule[] = []
  for (const index of fields) {
    const rule = index === null ? IGNORED : ruleOf(plan.columns[index]!)
    if (!rule) return { staged: false, why: 'dates not in YYYYMMDD' }
    rules.push(rule)
  }
  progress.start(spec.file, file.size, 'bytes')
  progress.tick(header.dataStart)
  const data = verbatimData(file.path, header.dataStart, rules, signal, progress)
  const outcome = await tx.stageVerbatim({
    table: spec.table,
    columns: plan.columns,
    fields,
    shifts,
    checks: spec.checks,
    data: data.chunks,
    plain: data.plain,
    convert: (column, raws) => raws.map((raw) => cellOrUndefined(plan, column, raw)),
  })
  // the row by row staging starts the file's progress over
  if (!outcome.staged) progress.done()
  return outcome
}

const IGNORED: FieldRule = { kind: 'ignored', required: false }

/** What the bytes of a column's field must be; undefined for a column the byte check cannot judge. */
function ruleOf(column: ColumnSpec): FieldRule | undefined {
  const required = !column.nullable && column.default === undefined
  switch (column.type) {
    case 'number':
    case 'integer':
      return { kind: column.type, required }
    case 'date':
      return column.dateFormat === 'compact' ? { kind: 'compact-date', required } : undefined
    case 'text':
      return { kind: 'text', required }
    default:
      return undefined
  }
}

function cellOrUndefined(plan: RowPlan, column: number, raw: string): Cell | undefined {
  try {
    return plan.cell(column, raw)
  } catch (err) {
    if (err instanceof RowError) return undefined
    throw err
  }
}
