/**
 * `stockplan import --dir DIR [--format native|tushare] [--encoding utf8|gbk]`: loads the CSV files of a
 * directory (COPY into a temp table, then an upsert), in dependency order. Native files each commit in their own
 * transaction: a bad row stops its file with `ImportError('<file>:<line>: <reason>')` and nothing of that file
 * is written; files committed before it stay. A tushare bundle is one transaction: its files are staged, then
 * merged together (bars need their adjustment factors, suspensions their previous bar), and a bad row
 * anywhere leaves the store as it was. Files are streamed, never held in memory whole.
 */
import { readdir, stat } from 'node:fs/promises'
import path from 'node:path'
import type { Logger } from '../../logger.js'
import { FILE_SPECS, type FileSpec, type ImportFormat, type TushareStage } from '../../storage/csv-formats.js'
import type { ImportStore, ImportTransaction } from '../../storage/import.repository.js'
import { ImportError } from '../../storage/import-error.js'
import { type Cell, DuplicateKeyError, rowEncoder, type Staging } from '../../storage/import-staging.js'
import type { MergeCounts, StagedFile } from '../../storage/tushare-merge.js'
import { throwIfAborted } from '../job.js'
import type { Progress } from '../progress.js'
import { barsByCopyFits, loadBarsByCopy } from './bars-by-copy.js'
import { bundleFileSize, openBundleFile } from './bundle-file.js'
import { type CsvEncoding, CsvEncodingError, CsvFile } from './csv-file.js'
import { type CsvRecord, CsvSyntaxError, type RecordSink } from './csv-reader.js'
import { planRows, RowError } from './row-parser.js'
import { stageFileVerbatim } from './verbatim-stage.js'

export interface ImportArgs {
  readonly dir: string
  readonly format: ImportFormat
  /** Text encoding of every file; UTF-8 when not given. */
  readonly encoding?: CsvEncoding
}

export interface ImportFileResult {
  file: string
  /** The store's table the file went into. */
  table: string
  /** Rows loaded from the file (rows the format skips, such as superseded tushare corrections, excluded). */
  rows: number
  inserted: number
  updated: number
  /** Rows identical to the stored ones, not written. */
  unchanged: number
  /** Rows left out on purpose, and why (`skippedWhy`). */
  skipped: number
  skippedWhy?: string
  /** Rows written onto another file's rows (adj_factor.csv's factors onto daily.csv's bars). */
  attached: number
  ms: number
}

export interface ImportResult {
  readonly summary: string
  readonly files: ImportFileResult[]
  /** What a person must know about the data imported (printed apart from the summary). */
  readonly warnings: string[]
}

export interface ImportDeps {
  readonly imports: ImportStore
  readonly log: Logger
  readonly progress: Progress
}

export { ImportError }

const TUSHARE_STAGES: ReadonlySet<string> = new Set<TushareStage>([
  'trade_cal',
  'daily',
  'adj_factor',
  'daily_basic',
  'fina_indicator',
  'namechange',
  'stock_st',
  'suspend_d',
  'stk_limit',
  'ths_index',
  'ths_member',
  'ths_daily',
])

const isStage = (table: string): table is TushareStage => TUSHARE_STAGES.has(table)

/** The table each staged tushare file ends up in. */
const STAGE_TABLES: Readonly<Record<TushareStage, string>> = {
  trade_cal: 'trading_calendar',
  daily: 'daily_bars',
  adj_factor: 'daily_bars',
  daily_basic: 'daily_basics',
  fina_indicator: 'financials',
  namechange: 'st_periods',
  stock_st: 'st_periods',
  suspend_d: 'daily_bars',
  stk_limit: 'daily_bars',
  ths_index: 'concept_boards',
  ths_member: 'theme_edges',
  ths_daily: 'concept_bars',
}

interface PresentFile {
  readonly spec: FileSpec
  readonly path: string
  readonly size: number
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
  const present: PresentFile[] = []
  for (const spec of specs) {
    const file = path.join(args.dir, spec.file)
    const size = await bundleFileSize(file)
    if (size !== undefined) present.push({ spec, path: file, size })
  }
  const encoding = args.encoding ?? 'utf8'
  const warnings: string[] = []
  const files =
    args.format === 'tushare'
      ? await importBundle(deps, present, encoding, signal, warnings)
      : await importEach(deps, present, encoding, signal)
  const seconds = ((performance.now() - started) / 1000).toFixed(1)
  if (files.length === 0) {
    const expected = specs.map((s) => s.file).join(', ')
    return { summary: `no input files in ${args.dir} (looked for ${expected})`, files, warnings }
  }
  const head = `imported ${files.length} file${files.length === 1 ? '' : 's'} (${args.format}) in ${seconds} s`
  if (args.format === 'tushare') return { summary: [`${head}:`, ...tableLines(files)].join('\n'), files, warnings }
  const total = (key: 'rows' | 'inserted' | 'updated' | 'unchanged'): number => files.reduce((n, f) => n + f[key], 0)
  const summary = `${head}: ${total('rows')} rows, ${total('inserted')} inserted, ${total('updated')} updated, ${total('unchanged')} unchanged`
  return { summary, files, warnings }
}

const count = (n: number): string => n.toLocaleString('en-US')

/** What one file did to its table: `daily.csv 2,324,599 inserted, 0 updated, 0 unchanged`. */
function fileCounts(f: ImportFileResult): string {
  const parts =
    f.attached > 0
      ? [
          `${count(f.attached)} attached to daily.csv's bars`,
          ...(f.updated > 0 ? [`${count(f.updated)} onto stored bars`] : []),
        ]
      : [`${count(f.inserted)} inserted`, `${count(f.updated)} updated`]
  if (f.unchanged > 0 || f.attached === 0) parts.push(`${count(f.unchanged)} unchanged`)
  if (f.skipped > 0) parts.push(`${count(f.skipped)} skipped (${f.skippedWhy ?? 'left out by the format'})`)
  return `${f.file} ${parts.join(', ')}`
}

/** One line per table, each naming the files that wrote it: counts as a person reads them. */
function tableLines(files: readonly ImportFileResult[]): string[] {
  const byTable = new Map<string, ImportFileResult[]>()
  for (const f of files) byTable.set(f.table, [...(byTable.get(f.table) ?? []), f])
  return [...byTable].map(([table, from]) => `  ${table}: ${from.map(fileCounts).join('; ')}`)
}

/** Native files: one transaction each. */
async function importEach(
  deps: ImportDeps,
  present: readonly PresentFile[],
  encoding: CsvEncoding,
  signal: AbortSignal,
): Promise<ImportFileResult[]> {
  const files: ImportFileResult[] = []
  for (const file of present) {
    throwIfAborted(signal)
    const result = await inTransaction(deps, signal, async (tx) => {
      const started = performance.now()
      const { staging, rows, skipped } = await stageFile(deps, tx, file, encoding, signal)
      const copied = performance.now()
      const counts = await tx.cancelOnAbort(() => upsert(tx, file.spec, staging))
      deps.log.info(
        {
          file: file.spec.file,
          table: file.spec.table,
          rows,
          ...counts,
          copy_ms: Math.round(copied - started),
          upsert_ms: Math.round(performance.now() - copied),
        },
        'import file loaded',
      )
      return fileResult(file.spec.file, file.spec.table, rows, { ...counts, skipped }, started)
    })
    deps.progress.done(doneLine(result))
    files.push(result)
  }
  return files
}

/** A tushare bundle: every file staged, then merged, in one transaction. */
async function importBundle(
  deps: ImportDeps,
  present: readonly PresentFile[],
  encoding: CsvEncoding,
  signal: AbortSignal,
  warnings: string[],
): Promise<ImportFileResult[]> {
  if (present.length === 0) return []
  const started = performance.now()
  const files = await inTransaction(deps, signal, async (tx) => {
    const results: ImportFileResult[] = []
    const staged = new Map<TushareStage, StagedFile>()
    const stagedRows = new Map<TushareStage, { rows: number; stagingMs: number }>()
    let securities: Staging | undefined
    const loaded = new Map<TushareStage, MergeCounts>()
    for (const file of present) {
      throwIfAborted(signal)
      const fileStarted = performance.now()
      const { table } = file.spec
      if (table === 'adj_factor' && loaded.has('adj_factor')) continue
      if (table === 'daily') {
        const bars = await loadBarsFirst(deps, tx, present, encoding, signal)
        if (bars !== undefined) {
          loaded
            .set('daily', { inserted: bars, updated: 0 })
            .set('adj_factor', { inserted: 0, updated: 0, attached: bars })
          stagedRows.set('daily', { rows: bars, stagingMs: performance.now() - fileStarted })
          stagedRows.set('adj_factor', { rows: bars, stagingMs: 0 })
          continue
        }
      }
      const { staging, rows } = await stageFile(deps, tx, file, encoding, signal)
      if (isStage(table)) {
        await tx.analyze(staging)
        staged.set(table, { name: staging.name, columns: new Set(staging.columns.map((c) => c.name)), rows })
        stagedRows.set(table, { rows, stagingMs: performance.now() - fileStarted })
        deps.progress.done(`${file.spec.file}: ${rows} rows staged`)
      } else {
        const counts = await tx.cancelOnAbort(() => upsert(tx, file.spec, staging))
        if (table === 'securities') securities = staging
        results.push(fileResult(file.spec.file, table, rows, counts, fileStarted))
        deps.progress.done(doneLine(results.at(-1)!))
      }
    }
    deps.progress.start('merging the bundle', 1)
    const mergeMs: Record<string, number> = {}
    const merged = await tx.cancelOnAbort(() => tx.mergeTushare(staged, mergeMs))
    deps.progress.done('bundle merged')
    deps.log.info({ merge_ms: mergeMs }, 'tushare bundle merged')
    for (const [stage, { rows, stagingMs }] of stagedRows) {
      const counts = merged.get(stage) ?? loaded.get(stage) ?? { inserted: 0, updated: 0 }
      // fina_indicator's superseded rows were never going to be stored: not counted as rows read for the table
      const superseded = stage === 'fina_indicator' ? (counts.skipped ?? 0) : 0
      const result = fileResult(
        `${stage}.csv`,
        STAGE_TABLES[stage],
        rows - superseded,
        counts,
        performance.now(),
        superseded === 0,
      )
      // a staged file's time: reading it, plus its merge step
      results.push({ ...result, ms: Math.round(stagingMs + (mergeMs[stage] ?? 0)) })
    }
    if (securities && !staged.has('namechange') && !staged.has('stock_st')) {
      const flags = await tx.stFromNames(securities)
      if (flags.codes > 0) {
        const warning =
          `stock_basic.csv: ${flags.codes} code${flags.codes === 1 ? '' : 's'} carry ST, *ST or 退 in their names, and the ` +
          `bundle has no namechange.csv or stock_st.csv: ` +
          (flags.from
            ? `they are flagged ST from ${flags.from} (the store's last bar date) on, earlier days unflagged`
            : 'they are not flagged (the store has no bars yet)') +
          '; add namechange.csv for their ST history'
        warnings.push(warning)
        deps.log.warn({ codes: flags.codes, from: flags.from }, 'ST taken from names: the bundle has no ST history')
      }
    }
    return results
  })
  deps.log.info({ files, ms: Math.round(performance.now() - started) }, 'tushare bundle imported')
  return files
}

/**
 * A first load's daily.csv and adj_factor.csv by one COPY into the empty daily_bars (bars-by-copy.ts), when the
 * bundle and the store allow; the bars loaded, or undefined when the files are to be staged as usual.
 */
async function loadBarsFirst(
  deps: ImportDeps,
  tx: ImportTransaction,
  present: readonly PresentFile[],
  encoding: CsvEncoding,
  signal: AbortSignal,
): Promise<number | undefined> {
  const daily = present.find((f) => f.spec.table === 'daily')
  const adj = present.find((f) => f.spec.table === 'adj_factor')
  if (encoding !== 'utf8' || !daily || !adj || !barsByCopyFits(new Set(present.map((f) => f.spec.table)))) {
    return undefined
  }
  const started = performance.now()
  const outcome = await loadBarsByCopy(tx, daily, adj, signal, deps.progress)
  if (!outcome.loaded) {
    deps.log.info({ why: outcome.why }, 'bars staged: not loaded by COPY')
    return undefined
  }
  deps.log.info(
    { rows: outcome.rows, ms: Math.round(performance.now() - started), steps_ms: outcome.ms },
    'bars loaded by COPY',
  )
  return outcome.rows
}

/**
 * `rows`: the file's rows the table was offered. `counts.skipped` rows were left out: part of `rows` when
 * `skippedInRows` (factors with no bar), not when the format drops them before (superseded corrections).
 */
function fileResult(
  file: string,
  table: string,
  rows: number,
  counts: { inserted: number; updated: number; attached?: number; skipped?: number; skippedWhy?: string },
  started: number,
  skippedInRows = false,
): ImportFileResult {
  const attached = counts.attached ?? 0
  const skipped = counts.skipped ?? 0
  return {
    file,
    table,
    rows,
    inserted: counts.inserted,
    updated: counts.updated,
    attached,
    unchanged: Math.max(0, rows - counts.inserted - counts.updated - attached - (skippedInRows ? skipped : 0)),
    skipped,
    ...(counts.skippedWhy ? { skippedWhy: counts.skippedWhy } : {}),
    ms: Math.round(performance.now() - started),
  }
}

function doneLine(r: ImportFileResult): string {
  return `${fileCounts(r).replace(' ', `: ${count(r.rows)} rows, `)} (${r.table})`
}

async function upsert(tx: ImportTransaction, spec: FileSpec, staging: Staging) {
  return tx.upsert(staging, spec.table, spec.primaryKey).catch((err: unknown) => {
    if (err instanceof DuplicateKeyError) throw new ImportError(spec.file, err.line, err.message)
    throw err
  })
}

/** Runs `work` in one transaction of the store; says so on the progress line when it is rolled back. */
async function inTransaction<T>(
  deps: ImportDeps,
  signal: AbortSignal,
  work: (tx: ImportTransaction) => Promise<T>,
): Promise<T> {
  try {
    return await deps.imports.inTransaction(signal, work)
  } catch (err) {
    deps.progress.done('rolled back')
    throw err
  }
}

/**
 * Reads one file into its staging table (header checked, every row converted); the rows COPY took. A tushare
 * bundle's staged file goes to PostgreSQL as it is when it can (verbatim-stage.ts); row by row otherwise.
 */
async function stageFile(
  deps: ImportDeps,
  tx: ImportTransaction,
  file: PresentFile,
  encoding: CsvEncoding,
  signal: AbortSignal,
): Promise<{ staging: Staging; rows: number; skipped: number }> {
  const { spec } = file
  const name = spec.file
  if (encoding === 'utf8' && isStage(spec.table)) {
    const started = performance.now()
    const outcome = await stageFileVerbatim(tx, file, signal, deps.progress)
    if (outcome.staged) {
      deps.log.info({ file: name, rows: outcome.rows, ms: Math.round(performance.now() - started) }, 'staged by COPY')
      return { staging: outcome.staging, rows: outcome.rows, skipped: 0 }
    }
    deps.log.info({ file: name, why: outcome.why }, 'staging the file row by row')
  }
  deps.progress.start(name, file.size, 'bytes')
  const input = new CsvFile(await openBundleFile(file.path), signal, deps.progress, encoding)
  try {
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

    const { staging, rows } = await tx.stage(spec.table, plan.columns, copyText())
    throwIfAborted(signal)
    return { staging, rows, skipped }
  } finally {
    input.close()
  }
}

/** One chunk of the file into `sink`; false at the end. Broken quoting becomes an ImportError. */
async function readChunk(file: string, input: CsvFile, sink: RecordSink): Promise<boolean> {
  try {
    return await input.read(sink)
  } catch (err) {
    if (err instanceof CsvSyntaxError || err instanceof CsvEncodingError) {
      throw new ImportError(file, err.line, err.message)
    }
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
