/**
 * Import throughput: writes N synthetic native bar rows (default 1,250,000 = 5000 stocks x 250 days) to a temp
 * dir and imports them twice into a fresh database: a first load (all inserts) and a re-import (all rows
 * unchanged). Prints rows, seconds and rows/s. Not a test: it asserts nothing.
 *
 *   npx tsx bench/import.bench.ts [--rows N] [--compare-insert]
 *
 * BENCH_DATABASE_URL names a PostgreSQL server: a database `stockplan_bench_<random>` is created there and
 * dropped afterwards. Without it an embedded PostgreSQL is started in a temp dir.
 * `--compare-insert` also loads the same rows with batched multi-row INSERT ... ON CONFLICT statements
 * (parsed by the same reader and row parser) to compare with COPY.
 */
import { createReadStream, createWriteStream } from 'node:fs'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { StringDecoder } from 'node:string_decoder'
import { parseArgs } from 'node:util'
import type pg from 'pg'
import pino from 'pino'
import { CsvReader } from '../src/jobs/import/csv-reader.js'
import { importDirectory } from '../src/jobs/import/import-job.js'
import { planRows } from '../src/jobs/import/row-parser.js'
import { silentProgress } from '../src/jobs/progress.js'
import { FILE_SPECS } from '../src/storage/csv-formats.js'
import { createDb } from '../src/storage/db.js'
import { createImportStore } from '../src/storage/import.repository.js'
import { migrateToLatest } from '../src/storage/migrate.js'
import { isoWeekdays, openScratchDatabase } from './support.js'

const DAYS = 250
const PREFIXES = ['600', '601', '603', '605', '000', '001', '002', '003', '300', '301', '688']

const tradingDays = (count: number): string[] => isoWeekdays(count, '2024-01-02')

/** Deterministic random walk per stock (another seed changes every row), written in ~1 MB pieces. */
async function writeBars(file: string, rows: number, start: number): Promise<number> {
  let seed = start
  const out = createWriteStream(file)
  const write = (text: string): Promise<void> =>
    new Promise((resolve, reject) => {
      out.write(text, (err) => (err ? reject(err) : resolve()))
    })
  await write(
    'code,trade_date,open,high,low,close,pre_close,volume,amount,turnover_rate,adj_factor,is_suspended,is_st\n',
  )
  const days = tradingDays(DAYS)
  const random = (): number => {
    seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0
    return seed / 4_294_967_296
  }
  let buffer = ''
  let written = 0
  for (let stock = 0; written < rows; stock++) {
    const code = `${PREFIXES[Math.floor(stock / 1000) % PREFIXES.length]}${String(stock % 1000).padStart(3, '0')}`
    let close = 5 + random() * 95
    for (const day of days) {
      if (written >= rows) break
      const pre = close
      close = Math.max(1, pre * (1 + (random() - 0.5) * 0.08))
      const open = pre * (1 + (random() - 0.5) * 0.02)
      const high = Math.max(open, close) * (1 + random() * 0.02)
      const low = Math.min(open, close) * (1 - random() * 0.02)
      const volume = Math.round(1e5 + random() * 5e7)
      buffer += `${code}.${code.startsWith('6') ? 'SH' : 'SZ'},${day},${open.toFixed(2)},${high.toFixed(2)},${low.toFixed(2)},${close.toFixed(2)},${pre.toFixed(2)},${volume},${(volume * close).toFixed(2)},${(random() * 5).toFixed(4)},1.000,false,false\n`
      written++
      if (buffer.length > 1 << 20) {
        await write(buffer)
        buffer = ''
      }
    }
  }
  await write(buffer)
  await new Promise<void>((resolve) => out.end(resolve))
  return written
}

/**
 * The alternative to COPY: the same reader and row parser, then INSERT ... ON CONFLICT in batches, either as
 * multi-row VALUES lists (13 parameters a row) or as one array parameter per column expanded by unnest.
 */
async function insertBatched(pool: pg.Pool, file: string, mode: 'values' | 'unnest', batch: number): Promise<number> {
  const spec = FILE_SPECS.native.find((s) => s.file === 'bars.csv')!
  const names = spec.columns.map((c) => c.name)
  const types = spec.columns.map(
    (c) => ({ text: 'text', date: 'date', number: 'float8', integer: 'int4', boolean: 'bool' })[c.type],
  )
  const rest = names.filter((c) => c !== 'code' && c !== 'trade_date')
  const conflict = `on conflict (code, trade_date) do update set ${rest.map((c) => `${c} = excluded.${c}`).join(', ')}
    where (${rest.map((c) => `daily_bars.${c}`).join(', ')}) is distinct from (${rest.map((c) => `excluded.${c}`).join(', ')})`
  const statement = (count: number): string => {
    if (mode === 'unnest') {
      return `insert into daily_bars (${names.join(', ')})
        select * from unnest(${types.map((t, i) => `$${i + 1}::${t}[]`).join(', ')}) ${conflict}`
    }
    const tuples: string[] = []
    for (let r = 0; r < count; r++) {
      tuples.push(`(${types.map((t, i) => `$${r * names.length + i + 1}::${t}`).join(', ')})`)
    }
    return `insert into daily_bars (${names.join(', ')}) values ${tuples.join(', ')} ${conflict}`
  }
  const full = statement(batch)
  const reader = new CsvReader()
  const decoder = new StringDecoder('utf8')
  let plan: ReturnType<typeof planRows> | undefined
  let pending: (string | null)[][] = []
  let rows = 0
  const client = await pool.connect()
  const flush = async (): Promise<void> => {
    if (pending.length === 0) return
    const text = pending.length === batch ? full : statement(pending.length)
    const params: unknown[] =
      mode === 'unnest' ? names.map((_, i) => pending.map((row) => row[i] ?? null)) : pending.flat()
    await client.query({
      text,
      values: params,
      ...(pending.length === batch ? { name: `bench_${mode}_${batch}` } : {}),
    })
    pending = []
  }
  const take = (fields: string[]): void => {
    if (!plan) {
      plan = planRows(spec, fields)
      return
    }
    const cells = plan.parse(fields)
    if (!cells) return
    pending.push(cells)
    rows++
  }
  try {
    await client.query('begin')
    for await (const chunk of createReadStream(file, { highWaterMark: 1 << 18 }) as AsyncIterable<Buffer>) {
      reader.push(decoder.write(chunk), take)
      while (pending.length >= batch) {
        const rest = pending.slice(batch)
        pending = pending.slice(0, batch)
        await flush()
        pending = rest
      }
    }
    reader.end(take)
    while (pending.length > 0) {
      const rest = pending.slice(batch)
      pending = pending.slice(0, batch)
      await flush()
      pending = rest
    }
    await client.query('commit')
  } catch (err) {
    await client.query('rollback')
    throw err
  } finally {
    client.release()
  }
  return rows
}

function report(label: string, rows: number, ms: number, extra = ''): void {
  const seconds = ms / 1000
  console.log(
    `${label.padEnd(28)} ${String(rows).padStart(9)} rows  ${seconds.toFixed(2).padStart(7)} s  ${Math.round(
      rows / seconds,
    )
      .toString()
      .padStart(9)} rows/s${extra}`,
  )
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { rows: { type: 'string', default: '1250000' }, 'compare-insert': { type: 'boolean', default: false } },
  })
  const target = Number(values.rows)
  if (!Number.isInteger(target) || target <= 0) throw new Error(`--rows must be a positive integer, got ${values.rows}`)
  const events: Record<string, unknown>[] = []
  const log = pino({ level: 'info' }, { write: (line: string) => events.push(JSON.parse(line)) })

  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'stockplan-bench-import-'))
  const database = await openScratchDatabase(log)
  const { db, pool } = createDb(database.url, log)
  try {
    const started = performance.now()
    const rows = await writeBars(path.join(dataDir, 'bars.csv'), target, 42)
    const size = (await stat(path.join(dataDir, 'bars.csv'))).size
    console.log(
      `wrote ${rows} bar rows (${(size / 1e6).toFixed(0)} MB) in ${((performance.now() - started) / 1000).toFixed(1)} s; ` +
        `${os.cpus().length} cores, node ${process.version}, ${process.env.BENCH_DATABASE_URL ? 'BENCH_DATABASE_URL' : 'embedded'} PostgreSQL`,
    )
    await migrateToLatest(db)
    const server = (await pool.query<{ server_version: string }>('show server_version')).rows[0]?.server_version
    console.log(`PostgreSQL ${server}`)
    const signal = new AbortController().signal
    const deps = { imports: createImportStore(pool), log, progress: silentProgress }
    const runs = ['copy: first import', 'copy: re-import (unchanged)', 'copy: every row changed']
    for (const label of runs) {
      if (label === runs[2]) await writeBars(path.join(dataDir, 'bars.csv'), target, 7)
      const t0 = performance.now()
      const result = await importDirectory(deps, { dir: dataDir, format: 'native' }, signal)
      const file = result.files[0]!
      const phases = events.at(-1) ?? {}
      report(
        label,
        file.rows,
        performance.now() - t0,
        `  (copy ${phases.copy_ms} ms, upsert ${phases.upsert_ms} ms; inserted ${file.inserted}, updated ${file.updated}, unchanged ${file.unchanged})`,
      )
    }
    console.log(
      `peak RSS of this process: ${Math.round(process.resourceUsage().maxRSS / 1024)} MB (the file is streamed)`,
    )
    if (values['compare-insert']) {
      await pool.query('truncate daily_bars')
      const variants: Array<['values' | 'unnest', number]> = [
        ['values', 1000],
        ['unnest', 10_000],
      ]
      for (const [mode, batch] of variants) {
        for (const phase of ['first import', 're-import (unchanged)']) {
          const t0 = performance.now()
          const loaded = await insertBatched(pool, path.join(dataDir, 'bars.csv'), mode, batch)
          report(`${mode} x${batch}: ${phase}`, loaded, performance.now() - t0)
        }
        await pool.query('truncate daily_bars')
      }
    }
  } finally {
    await db.destroy()
    await database.close()
    await rm(dataDir, { recursive: true, force: true })
  }
}

main().catch((err: unknown) => {
  console.error(err)
  process.exitCode = 1
})
