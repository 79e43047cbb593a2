/**
 * `stockplan import --dir DIR [--format native|tushare]`: loads the CSV files of a directory, each in one
 * transaction (COPY into a temp table, then an upsert), in dependency order. A bad row stops its file with
 * `ImportError('<file>:<line>: <reason>')` and nothing of that file is written; files committed before it
 * stay. Files are streamed, never held in memory whole.
 */
import { readdir, stat } from 'node:fs/promises'
import path from 'node:path'
import type pg from 'pg'
import type { Logger } from '../../logger.js'
import { FILE_SPECS, type FileSpec, type ImportFormat } from '../../storage/csv-formats.js'
import type { Db } from '../../storage/db.js'
import { throwIfAborted } from '../job.js'
import type { Progress } from '../progress.js'
import { copyIntoStaging, createStaging, DuplicateKeyError, rowEncoder, upsertFromStaging } from './copy-loader.js'
import { CsvFile } from './csv-file.js'
import { type CsvRecord, CsvSyntaxError, type RecordSink } from './csv-reader.js'
import { type Cell, planRows, RowError } from './row-parser.js'

export interface ImportArgs {
  readonly dir: string
  readonly format: ImportFormat
}

export interface ImportFileResult {
  file: string
  /** Rows loaded from the file (rows the format skips, such as superseded tushare corrections, excluded). */
  rows: number
  inserted: number
  updated: number
  /** Rows identical to the stored ones, not written. */
  unchanged: number
  /** Rows the format skips on purpose (tushare corrections superseded by a later row: update_flag 0). */
  skipped: number
  ms: number
}

export interface ImportResult {
  readonly summary: string
  readonly files: ImportFileResult[]
}

export interface ImportDeps {
  readonly db: Db
  readonly pool: pg.Pool
  readonly log: Logger
  readonly progress: Progress
}

/** A bad input: the message is exactly `<file>:<line>: <reason>`, line 1 being the header. */
export class ImportError extends Error {
  override name = 'ImportError'
  readonly file: string
  readonly line: number
  readonly reason: string
  constructor(file: string, line: number, reason: string) {
    super(`${file}:${line}: ${reason}`)
    this.file = file
    this.line = line
    this.reason = reason
  }
}

/** Imports every known file present in `args.dir`; resolves with per-file counts. */
export async function importDirectory(deps: ImportDeps, args: ImportArgs, signal: AbortSignal): Promise<ImportResult> {
  throwIfAborted(signal)
  const specs = FILE_SPECS[args.format]
  if (!specs) throw new Error(`unknown import format "${String(args.format)}": use native or tushare`)
  const dir = await stat(args.dir).catch(() => undefined)
  if (!dir?.isDirectory()) throw new Error(`import directory ${args.dir} does not exist`)
  const known = new Set(specs.map((s) => s.file))
  const strangers = (await readdir(args.dir)).filter((f) => f.toLowerCase().endsWith('.csv') && !known.has(f))
  if (strangers.length > 0) deps.log.warn({ dir: args.dir, files: strangers }, 'import ignores files it does not know')
  const started = performance.now()
  const files: ImportFileResult[] = []
  for (const spec of specs) {
    const file = path.join(args.dir, spec.file)
    const info = await stat(file).catch(() => undefined)
    if (!info?.isFile()) continue
    throwIfAborted(signal)
    const { result, copyMs, upsertMs } = await importFile(deps, spec, file, info.size, signal)
    deps.log.info(
      { ...result, table: spec.table, format: args.format, copy_ms: copyMs, upsert_ms: upsertMs },
      'import file loaded',
    )
    files.push(result)
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1)
  if (files.length === 0) {
    const expected = specs.map((s) => s.file).join(', ')
    return { summary: `no input files in ${args.dir} (looked for ${expected})`, files }
  }
  const total = (key: 'rows' | 'inserted' | 'updated' | 'unchanged'): number => files.reduce((n, f) => n + f[key], 0)
  const skipped = files.reduce((n, f) => n + f.skipped, 0)
  const summary =
    `imported ${files.length} file${files.length === 1 ? '' : 's'} (${args.format}) in ${seconds} s: ` +
    `${total('rows')} rows, ${total('inserted')} inserted, ${total('updated')} updated, ${total('unchanged')} unchanged` +
    (skipped > 0 ? `; ${skipped} superseded row${skipped === 1 ? '' : 's'} skipped` : '')
  return { summary, files }
}

async function importFile(
  deps: ImportDeps,
  spec: FileSpec,
  file: string,
  size: number,
  signal: AbortSignal,
): Promise<{ result: ImportFileResult; copyMs: number; upsertMs: number }> {
  const name = spec.file
  const started = performance.now()
  deps.progress.start(name, size, 'bytes')
  const client = await deps.pool.connect()
  const input = new CsvFile(file, signal, deps.progress)
  let discard = false
  let onAbort: (() => void) | undefined
  try {
    await client.query('begin')
    const pid = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]?.pid

    // the header, and the records that came with it in the first chunk
    let header: CsvRecord | undefined
    const early: CsvRecord[] = []
    const collect: RecordSink = (fields, line) => {
      if (header === undefined) header = { fields, line }
      else early.push({ fields, line })
    }
    while (header === undefined && (await readChunk(name, input, collect)));
    if (header === undefined) throw new ImportError(name, 1, 'empty file: no header row')
    const headerFields = header.fields
    const plan = lineError(name, header.line, () => planRows(spec, headerFields))
    const encode = rowEncoder(plan.columns)

    let lines: string[] = []
    let skipped = 0
    const encodeRow: RecordSink = (fields, line) => {
      let cells: Cell[] | null
      try {
        cells = plan.parse(fields)
      } catch (err) {
        if (err instanceof RowError) throw new ImportError(name, line, err.message)
        throw err
      }
      if (cells !== null) lines.push(encode(line, cells))
      else skipped++
    }
    const take = (): string => {
      const text = lines.join('')
      lines = []
      return text
    }
    async function* copyText(): AsyncGenerator<string> {
      for (const record of early) encodeRow(record.fields, record.line)
      early.length = 0
      while (await readChunk(name, input, encodeRow)) if (lines.length > 0) yield take()
      if (lines.length > 0) yield take()
    }

    const staging = await createStaging(client, spec.table, plan.columns)
    const rows = await copyIntoStaging(client, staging, copyText())
    const copied = performance.now()
    throwIfAborted(signal)
    // a long upsert is cancelled on the server when the job is aborted
    onAbort = () => {
      if (pid === undefined) return
      // the cancel may land after this client went back to the pool: never hand that connection on
      discard = true
      deps.pool.query('select pg_cancel_backend($1)', [pid]).catch(() => undefined)
    }
    signal.addEventListener('abort', onAbort, { once: true })
    const counts = await upsertFromStaging(client, staging, spec.table, spec.primaryKey).catch((err: unknown) => {
      if (err instanceof DuplicateKeyError) throw new ImportError(name, err.line, err.message)
      throwIfAborted(signal)
      throw err
    })
    const upserted = performance.now()
    throwIfAborted(signal)
    await client.query('commit')
    const result: ImportFileResult = {
      file: name,
      rows,
      inserted: counts.inserted,
      updated: counts.updated,
      unchanged: rows - counts.inserted - counts.updated,
      skipped,
      ms: Math.round(performance.now() - started),
    }
    deps.progress.done(
      `${name}: ${rows} rows, ${counts.inserted} inserted, ${counts.updated} updated, ${rows - counts.inserted - counts.updated} unchanged${skipped > 0 ? `, ${skipped} skipped` : ''}`,
    )
    return { result, copyMs: Math.round(copied - started), upsertMs: Math.round(upserted - copied) }
  } catch (err) {
    await client.query('rollback').catch(() => {
      discard = true
    })
    deps.progress.done(`${name}: rolled back`)
    throw err
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort)
    input.close()
    client.release(discard)
  }
}

/** One chunk of the file into `sink`; false at the end. Broken quoting becomes an ImportError. */
async function readChunk(file: string, input: CsvFile, sink: RecordSink): Promise<boolean> {
  try {
    return await input.read(sink)
  } catch (err) {
    if (err instanceof CsvSyntaxError) throw new ImportError(file, err.line, err.message)
    throw err
  }
}

function lineError<T>(file: string, line: number, run: () => T): T {
  try {
    return run()
  } catch (err) {
    if (err instanceof RowError) throw new ImportError(file, line, err.message)
    throw err
  }
}
