import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ImportError, type ImportResult, importDirectory } from '../../src/jobs/import/import-job.js'
import { type Progress, silentProgress } from '../../src/jobs/progress.js'
import { createImportStore } from '../../src/storage/import.repository.js'
import { failure, rows } from '../support/queries.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'

const GOLDEN = fileURLToPath(new URL('../data/tushare/bundle/', import.meta.url))
const signal = new AbortController().signal

async function runImport(
  t: TestDatabase,
  dir: string,
  options: { signal?: AbortSignal; progress?: Progress } = {},
): Promise<{ logged: Record<string, unknown>[]; result: ImportResult }> {
  const logged: Record<string, unknown>[] = []
  const log = pino({ level: 'info' }, { write: (line: string) => logged.push(JSON.parse(line)) })
  const result = await importDirectory(
    { imports: createImportStore(t.pool), log, progress: options.progress ?? silentProgress },
    { dir, format: 'tushare' },
    options.signal ?? signal,
  )
  return { logged, result }
}

const loadedByCopy = (logged: Record<string, unknown>[]): boolean => logged.some((e) => e.msg === 'bars loaded by COPY')

const temps: string[] = []
afterAll(async () => {
  for (const dir of temps) await rm(dir, { recursive: true, force: true })
})

const key = (line: string): string => line.split(',').slice(0, 2).join(',')

/**
 * The golden bundle's bars as a first full-market load brings them: stock_basic, trade_cal, index_daily,
 * daily.csv in (code, trade_date) order and adj_factor.csv holding the factors of those bars in the same order;
 * `edit` then changes the two files' lines (header first). `others`: more of the golden bundle's files.
 */
async function barsBundle(
  edit?: (daily: string[], adj: string[]) => void,
  others: readonly string[] = [],
): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'stockplan-bars-by-copy-'))
  temps.push(dir)
  for (const file of ['stock_basic.csv', 'trade_cal.csv', 'index_daily.csv', ...others]) {
    await cp(path.join(GOLDEN, file), path.join(dir, file))
  }
  const lines = async (file: string) =>
    (await readFile(path.join(GOLDEN, file), 'utf8')).split('\n').filter((l) => l !== '')
  const [dailyHeader, ...bars] = await lines('daily.csv')
  const [adjHeader, ...factors] = await lines('adj_factor.csv')
  const factorOf = new Map(factors.map((l) => [key(l), l]))
  bars.sort((a, b) => (key(a) < key(b) ? -1 : 1))
  const daily = [dailyHeader!, ...bars]
  const adj = [adjHeader!, ...bars.map((l) => factorOf.get(key(l))!)]
  edit?.(daily, adj)
  await writeFile(path.join(dir, 'daily.csv'), `${daily.join('\n')}\n`)
  await writeFile(path.join(dir, 'adj_factor.csv'), `${adj.join('\n')}\n`)
  return dir
}

const STORE = `select (select count(*) from daily_bars)::int as bars, (select count(*) from securities)::int as securities,
  (select count(*) from trading_calendar)::int as calendar, (select count(*) from index_bars)::int as index_bars`
const BAR_INDEXES = `select indexname, indexdef from pg_indexes where tablename = 'daily_bars' order by 1`
const ALL_BARS = 'select * from daily_bars order by code, trade_date'
const BAR_CONSTRAINTS = `select conname, pg_get_constraintdef(oid) as def from pg_constraint
  where conrelid = 'daily_bars'::regclass order by 1`
const EMPTY = [{ bars: 0, securities: 0, calendar: 0, index_bars: 0 }]

describe('tushare import: a first load of bars by one COPY', () => {
  let byCopy: TestDatabase
  let staged: TestDatabase
  let byCopyRun: { logged: Record<string, unknown>[]; result: ImportResult }
  let stagedRun: { logged: Record<string, unknown>[]; result: ImportResult }
  let indexes: Record<string, unknown>[]
  beforeAll(async () => {
    byCopy = await createTestDatabase()
    staged = await createTestDatabase()
    indexes = await rows(byCopy, BAR_INDEXES)
    byCopyRun = await runImport(byCopy, await barsBundle())
    // the same bars with the factors in another order do not zip: staged and merged
    stagedRun = await runImport(
      staged,
      await barsBundle((_daily, adj) => adj.splice(1, adj.length - 1, ...adj.slice(1).reverse())),
    )
  })
  afterAll(async () => {
    await byCopy.drop()
    await staged.drop()
  })

  it('loads the bars by one COPY, or stages them when the files do not zip', () => {
    expect(loadedByCopy(byCopyRun.logged)).toBe(true)
    expect(loadedByCopy(stagedRun.logged)).toBe(false)
    expect(stagedRun.logged.find((e) => e.msg === 'bars staged: not loaded by COPY')?.why).toMatch(/key order/)
  })

  it('stores the same bars as staging and merging, with the same indexes', async () => {
    const bars = await rows(staged, ALL_BARS)
    expect(bars).toHaveLength(861)
    expect(await rows(byCopy, ALL_BARS)).toEqual(bars)
    expect(await rows(byCopy, BAR_INDEXES)).toEqual(indexes)
    expect(await rows(byCopy, BAR_CONSTRAINTS)).toEqual(await rows(staged, BAR_CONSTRAINTS))
    expect(await rows(byCopy, STORE)).toEqual(await rows(staged, STORE))
  })

  it('counts the bars inserted and the factors attached as the merge does', () => {
    const counts = (run: typeof byCopyRun) =>
      run.result.files.map(({ file, rows, inserted, updated, attached, unchanged }) => ({
        file,
        rows,
        inserted,
        updated,
        attached,
        unchanged,
      }))
    expect(counts(byCopyRun)).toEqual(counts(stagedRun))
    expect(byCopyRun.result.files.find((f) => f.file === 'adj_factor.csv')).toMatchObject({ attached: 861 })
  })

  it('stages the bars when PostgreSQL refuses a value, into the same rows', async () => {
    const t = await createTestDatabase()
    try {
      // a volume with an exponent of its own: the row parser reads it, the shifted text `…e0e2` is no number
      const dir = await barsBundle((daily) => edit(daily, 1, 9, `${daily[1]!.split(',')[9]}e0`))
      const { logged } = await runImport(t, dir)
      expect(logged.find((e) => e.msg === 'bars staged: not loaded by COPY')?.why).toMatch(/PostgreSQL refused/)
      expect(await rows(t, ALL_BARS)).toEqual(await rows(byCopy, ALL_BARS))
    } finally {
      await t.drop()
    }
  })

  it('flags ST from the name changes of the bundle and adds its suspensions as the merge does', async () => {
    const others = ['namechange.csv', 'suspend_d.csv']
    const reversed = (_daily: string[], adj: string[]) => adj.splice(1, adj.length - 1, ...adj.slice(1).reverse())
    const [copied, merged] = [await createTestDatabase(), await createTestDatabase()]
    try {
      expect(loadedByCopy((await runImport(copied, await barsBundle(undefined, others))).logged)).toBe(true)
      expect(loadedByCopy((await runImport(merged, await barsBundle(reversed, others))).logged)).toBe(false)
      // 600301.SH is ST from 2024-01-10 through 2024-02-20; 000540.SZ is suspended three whole days
      const flagged = await rows(
        copied,
        `select count(*)::int as n from daily_bars where is_st and code = '600301.SH'
        and trade_date between '2024-01-10' and '2024-02-20'`,
      )
      const st = await rows(copied, 'select count(*)::int as n from daily_bars where is_st')
      const suspended = await rows(copied, 'select count(*)::int as n from daily_bars where is_suspended')
      expect(st).toEqual(flagged)
      expect(flagged[0]!.n).toBeGreaterThan(20)
      expect(suspended).toEqual([{ n: 3 }])
      for (const query of [ALL_BARS, 'select * from st_periods order by code, start_date']) {
        expect(await rows(copied, query)).toEqual(await rows(merged, query))
      }
    } finally {
      await copied.drop()
      await merged.drop()
    }
  })

  it('leaves a store that holds bars to the merge, which finds them unchanged', async () => {
    const again = await runImport(byCopy, await barsBundle())
    expect(loadedByCopy(again.logged)).toBe(false)
    expect(again.result.files.find((f) => f.file === 'daily.csv')).toMatchObject({ inserted: 0, unchanged: 861 })
  })
})

describe('tushare import: bad rows of a first load by COPY', () => {
  let t: TestDatabase
  let indexes: Record<string, unknown>[]
  beforeAll(async () => {
    t = await createTestDatabase()
    indexes = await rows(t, BAR_INDEXES)
  })
  afterAll(() => t.drop())

  // each case edits the bars bundle; the import must name the file, line and reason as the staged path does,
  // and leave the store empty with daily_bars' indexes
  const cases: Array<[string, (daily: string[], adj: string[]) => void, RegExp]> = [
    ['a negative volume', (d) => edit(d, 5, 9, '-5'), /^daily\.csv:6: vol -5 is negative$/],
    ['high below low', (d) => edit(d, 7, 3, '0.5'), /^daily\.csv:8: high .* below low/],
    ['a code node refuses', (d, a) => [edit(d, 3, 0, '600519.XX'), edit(a, 3, 0, '600519.XX')], /^daily\.csv:4: /],
    ['a negative factor', (_d, a) => edit(a, 9, 2, '-1'), /^adj_factor\.csv:10: adj_factor -1 is negative$/],
    ['a price that is no number', (d) => edit(d, 2, 2, 'abc'), /^daily\.csv:3: open "abc" is not a number$/],
    [
      'a repeated bar with its repeated factor',
      (d, a) => {
        d.splice(3, 0, d[2]!)
        a.splice(3, 0, a[2]!)
      },
      /^daily\.csv:4: repeats \(code, trade_date\) = \(.*\) of line 3$/,
    ],
    [
      'a bar without its factor',
      (_d, a) => a.splice(4, 1),
      /^daily\.csv:5: bar of .* has no adjustment factor \(adj_factor\.csv has no row for it\)/,
    ],
  ]
  it.each(cases)('reports %s and writes nothing', async (_name, change, message) => {
    const err = await failure(runImport(t, await barsBundle(change)))
    expect(err).toBeInstanceOf(ImportError)
    expect(err.message).toMatch(message)
    expect(await rows(t, STORE)).toEqual(EMPTY)
    expect(await rows(t, BAR_INDEXES)).toEqual(indexes)
  })

  it('rolls back an abort during the COPY, and the next import loads the bars', async () => {
    const controller = new AbortController()
    let read = 0
    const progress: Progress = {
      ...silentProgress,
      tick: (n = 1) => {
        read += n
        if (read > 40_000) controller.abort(new Error('interrupted in the bars'))
      },
    }
    const dir = await barsBundle()
    const err = await failure(runImport(t, dir, { signal: controller.signal, progress }))
    expect(err.message).toBe('interrupted in the bars')
    expect(await rows(t, STORE)).toEqual(EMPTY)
    expect(await rows(t, BAR_INDEXES)).toEqual(indexes)
    const { logged, result } = await runImport(t, dir)
    expect(loadedByCopy(logged)).toBe(true)
    expect(result.files.find((f) => f.file === 'daily.csv')).toMatchObject({ rows: 861, inserted: 861 })
  })
})

/** Sets field `field` of line `line` (0 = header) to `value`. */
function edit(lines: string[], line: number, field: number, value: string): void {
  const fields = lines[line]!.split(',')
  fields[field] = value
  lines[line] = fields.join(',')
}
