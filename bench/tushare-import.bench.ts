/**
 * Tushare bundle import against its floor, in one run on one fresh database:
 * 1. baseline: a bare `COPY ... (format csv, header)` of the bundle's daily.csv and adj_factor.csv, as they are,
 *    into unindexed tables of the same column types (no parsing in node, no keys, no merge);
 * 2. `importDirectory(--format tushare)` of the whole bundle into the empty store (the first import);
 * 3. the same bundle again (every row unchanged).
 * Prints rows, seconds, rows/s, the ratio to the baseline, the import's phase times (how each file was staged,
 * the merge's steps) and the peak RSS. For a before/after figure, run it on the two commits back to back.
 * Not a test: it asserts nothing.
 *
 *   npx tsx scripts/real-ashare-bundle.ts --out /tmp/real-bundle      # the full real market (2.3 M bars)
 *   npx tsx bench/tushare-import.bench.ts --dir /tmp/real-bundle
 *
 * BENCH_DATABASE_URL names a PostgreSQL server (a scratch database is created and dropped); without it an
 * embedded PostgreSQL runs in a temp dir.
 */
import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { pipeline } from 'node:stream/promises'
import { parseArgs } from 'node:util'
import type pg from 'pg'
import { from as copyFrom } from 'pg-copy-streams'
import pino from 'pino'
import { importDirectory } from '../src/jobs/import/import-job.js'
import { silentProgress } from '../src/jobs/progress.js'
import { createDb } from '../src/storage/db.js'
import { createImportStore } from '../src/storage/import.repository.js'
import { migrateToLatest } from '../src/storage/migrate.js'
import { openScratchDatabase } from './support.js'

const BASELINE_TABLES: Readonly<Record<string, string>> = {
  'daily.csv': `ts_code text, trade_date text, open float8, high float8, low float8, close float8,
    pre_close float8, change float8, pct_chg float8, vol float8, amount float8`,
  'adj_factor.csv': 'ts_code text, trade_date text, adj_factor float8',
}

async function bareCopy(pool: pg.Pool, dir: string): Promise<{ rows: number; ms: number }> {
  const client = await pool.connect()
  const started = performance.now()
  let rows = 0
  try {
    for (const [file, columns] of Object.entries(BASELINE_TABLES)) {
      const table = `baseline_${file.replace('.csv', '')}`
      await client.query(`create unlogged table ${table} (${columns})`)
      const header = (await readHeader(path.join(dir, file))).join(', ')
      const copy = client.query(copyFrom(`copy ${table} (${header}) from stdin (format csv, header)`))
      await pipeline(createReadStream(path.join(dir, file)), copy)
      rows += copy.rowCount
    }
    return { rows, ms: performance.now() - started }
  } finally {
    for (const file of Object.keys(BASELINE_TABLES)) {
      await client.query(`drop table if exists baseline_${file.replace('.csv', '')}`)
    }
    client.release()
  }
}

async function readHeader(file: string): Promise<string[]> {
  for await (const chunk of createReadStream(file, { encoding: 'utf8', end: 4095 })) {
    return String(chunk).split(/\r?\n/)[0]!.split(',')
  }
  return []
}

function line(label: string, rows: number, ms: number, baselineRate?: number, extra = ''): void {
  const rate = rows / (ms / 1000)
  const ratio = baselineRate ? `  ${(rate / baselineRate).toFixed(2)}x baseline` : ''
  console.log(
    `${label.padEnd(34)} ${rows.toLocaleString('en').padStart(11)} rows ${(ms / 1000).toFixed(2).padStart(7)} s ` +
      `${Math.round(rate).toLocaleString('en').padStart(10)} rows/s${ratio}${extra}`,
  )
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { dir: { type: 'string' } } })
  if (!values.dir) throw new Error('--dir BUNDLE is required (make one with scripts/real-ashare-bundle.ts --out DIR)')
  const dir = path.resolve(values.dir)
  for (const file of Object.keys(BASELINE_TABLES)) {
    if (!(await stat(path.join(dir, file)).catch(() => null))) throw new Error(`${dir} has no ${file}`)
  }
  const events: Record<string, unknown>[] = []
  const log = pino({ level: 'info' }, { write: (text: string) => events.push(JSON.parse(text)) })
  const database = await openScratchDatabase(log)
  const { db, pool } = createDb(database.url, log)
  try {
    await migrateToLatest(db)
    const server = (await pool.query<{ server_version: string }>('show server_version')).rows[0]?.server_version
    console.log(
      `bundle ${dir}; ${os.cpus().length} cores, load ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}; node ${process.version}, PostgreSQL ${server}`,
    )
    const baseline = await bareCopy(pool, dir)
    const baselineRate = baseline.rows / (baseline.ms / 1000)
    line('baseline: bare COPY daily+adj_factor', baseline.rows, baseline.ms)
    const deps = { imports: createImportStore(pool), log, progress: silentProgress }
    for (const label of ['import: first (empty store)', 'import: again (unchanged)']) {
      events.length = 0
      const started = performance.now()
      const result = await importDirectory(deps, { dir, format: 'tushare' }, new AbortController().signal)
      const ms = performance.now() - started
      const rows = result.files
        .filter((f) => f.file === 'daily.csv' || f.file === 'adj_factor.csv')
        .reduce((n, f) => n + f.rows, 0)
      const merge = events.find((e) => e.msg === 'tushare bundle merged')?.merge_ms
      line(label, rows, ms, baselineRate, `  (merge ms ${JSON.stringify(merge)})`)
      const staged = events.flatMap((e) => {
        if (e.msg === 'staged by COPY') return [`${e.file} by COPY ${e.ms} ms`]
        if (e.msg === 'staging the file row by row') return [`${e.file} row by row (${e.why})`]
        if (e.msg === 'bars loaded by COPY')
          return [`daily.csv + adj_factor.csv into daily_bars by one COPY ${e.ms} ms ${JSON.stringify(e.steps_ms)}`]
        if (e.msg === 'bars staged: not loaded by COPY') return [`bars not loaded by one COPY (${e.why})`]
        return []
      })
      if (staged.length > 0) console.log(`  staging: ${staged.join('; ')}`)
      console.log(`  ${result.summary}`)
    }
    console.log(`peak RSS of this process: ${Math.round(process.resourceUsage().maxRSS / 1024)} MB`)
  } finally {
    await db.destroy()
    await database.close()
  }
}

main().catch((err: unknown) => {
  console.error(err)
  process.exitCode = 1
})
