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
import { type FieldRule, readVerbatimHeader, type VerbatimHeader, verbatimData } from './verbatim-source.js'

export interface VerbatimInput {
  readonly spec: FileSpec
  readonly path: string
  readonly size: number
}

/** How a file's bytes map onto its row plan's columns, when COPY can read them as they are. */
export interface VerbatimPlan {
  readonly header: VerbatimHeader
  readonly plan: RowPlan
  /** For each field of a record, in file order: the column it fills, or null for a field the format ignores. */
  readonly fields: readonly (number | null)[]
  /** Per column: the power of ten a number's unit factor shifts it by (0: none). */
  readonly shifts: readonly number[]
  /** Per field: what its bytes must be. */
  readonly rules: readonly FieldRule[]
}

/** The file's verbatim plan, or why its bytes cannot go to COPY as they are. */
export async function planVerbatim(file: VerbatimInput): Promise<VerbatimPlan | { readonly why: string }> {
  const { spec } = file
  if (spec.skipRows) return { why: 'rows skipped by value' }
  if (spec.columns.some((c) => c.derive !== undefined)) return { why: 'columns derived from the code' }
  const header = await readVerbatimHeader(file.path)
  if (!header) return { why: 'no plain header on line 1' }
  let plan: RowPlan
  try {
    plan = planRows(spec, header.fields)
  } catch (err) {
    if (err instanceof RowError) return { why: 'a header node refuses' }
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
    if (shift === undefined) return { why: `the unit factor of ${column.name} is no power of ten` }
    shifts.push(shift)
  }
  const blocker = verbatimBlocker(plan.columns, fields)
  if (blocker) return { why: blocker }
  const rules: FieldRule[] = []
  for (const index of fields) {
    const rule = index === null ? IGNORED : ruleOf(plan.columns[index]!)
    if (!rule) return { why: 'dates not in YYYYMMDD' }
    rules.push(rule)
  }
  return { header, plan, fields, shifts, rules }
}

export async function stageFileVerbatim(
  tx: ImportTransaction,
  file: VerbatimInput,
  signal: AbortSignal,
  progress: Progress,
): Promise<VerbatimOutcome> {
  const planned = await planVerbatim(file)
  if ('why' in planned) return { staged: false, why: planned.why }
  const { header, plan, fields, shifts, rules } = planned
  progress.start(file.spec.file, file.size, 'bytes')
  progress.tick(header.dataStart)
  const data = verbatimData(file.path, header.dataStart, rules, signal, progress)
  const outcome = await tx.stageVerbatim({
    table: file.spec.table,
    columns: plan.columns,
    fields,
    shifts,
    checks: file.spec.checks,
    data: data.chunks,
    plain: data.plain,
    convert: textConverter(plan),
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

/** Cells of column `column` for distinct raw values, as node makes them; undefined for a refused value. */
export function textConverter(plan: RowPlan): (column: number, raws: readonly string[]) => (Cell | undefined)[] {
  return (column, raws) => raws.map((raw) => cellOrUndefined(plan, column, raw))
}

function cellOrUndefined(plan: RowPlan, column: number, raw: string): Cell | undefined {
  try {
    return plan.cell(column, raw)
  } catch (err) {
    if (err instanceof RowError) return undefined
    throw err
  }
}
