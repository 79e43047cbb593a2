import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ImportError, type ImportResult, importDirectory } from '../../src/jobs/import/import-job.js'
import { planRows, RowError } from '../../src/jobs/import/row-parser.js'
import { type FieldRule, plainRecords } from '../../src/jobs/import/verbatim-source.js'
import { type Progress, silentProgress } from '../../src/jobs/progress.js'
import { FILE_SPECS } from '../../src/storage/csv-formats.js'
import { createImportStore } from '../../src/storage/import.repository.js'
import { failure, rows } from '../support/queries.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'

const BUNDLE = fileURLToPath(new URL('../data/tushare/bundle/', import.meta.url))
const signal = new AbortController().signal

/** Imports `dir`; the messages logged, to tell which files went to COPY as they are. */
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

const temps: string[] = []
async function bundleCopy(change: (dir: string) => Promise<void>): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'stockplan-copy-stage-'))
  temps.push(dir)
  await cp(BUNDLE, dir, { recursive: true })
  await change(dir)
  return dir
}

async function editLines(dir: string, file: string, edit: (lines: string[]) => string[]): Promise<void> {
  const target = path.join(dir, file)
  const lines = (await readFile(target, 'utf8')).split('\n')
  await writeFile(target, edit(lines).join('\n'))
}

/** The line (1-based) and fields of the first row of `lines` starting with `prefix`. */
function lineOf(lines: string[], prefix: string): number {
  const index = lines.findIndex((l) => l.startsWith(prefix))
  if (index < 0) throw new Error(`no line starts with ${prefix}`)
  return index + 1
}

/** What the row parser says of `row` under `file`'s header: the message a bad row must carry. */
function parserReason(file: string, header: string, row: string): string {
  const spec = FILE_SPECS.tushare.find((s) => s.file === file)!
  try {
    planRows(spec, header.split(',')).parse(row.split(','))
  } catch (err) {
    if (err instanceof RowError) return err.message
    throw err
  }
  throw new Error(`the row parser takes ${row}`)
}

const STORE = `select (select count(*) from daily_bars)::int as bars, (select count(*) from securities)::int as securities,
  (select count(*) from trading_calendar)::int as calendar, (select count(*) from financials)::int as financials`
const BAR_INDEXES = `select indexname from pg_indexes where tablename = 'daily_bars' order by 1`
const ALL_BARS = 'select * from daily_bars order by code, trade_date'

afterAll(async () => {
  for (const dir of temps) await rm(dir, { recursive: true, force: true })
})

describe('tushare import: files staged by COPY', () => {
  let t: TestDatabase
  beforeAll(async () => {
    t = await createTestDatabase()
  })
  afterAll(() => t.drop())

  // each case edits one row of the bundle; the first import into the empty store must refuse it as the row
  // parser does (file, line, reason) and leave the store empty with its indexes
  const cases: Array<[string, string, string, (fields: string[]) => string[]]> = [
    ['a price that is no number', 'daily.csv', '600519.SH,20240103', (f) => f.with(2, 'abc')],
    ['a negative volume', 'daily.csv', '600519.SH,20240104', (f) => f.with(9, '-5')],
    ['high below low', 'daily.csv', '600519.SH,20240105', (f) => f.with(3, '1.5')],
    ['a day that does not exist', 'daily.csv', '600519.SH,20240108', (f) => f.with(1, '20230229')],
    ['a code node refuses', 'daily.csv', '600519.SH,20240109', (f) => f.with(0, '600519.XX')],
    ['a hex number PostgreSQL would read', 'daily.csv', '600519.SH,20240110', (f) => f.with(5, '0x1A')],
    ['NaN', 'adj_factor.csv', '300750.SZ,20240103', (f) => f.with(2, 'NaN')],
    ['an empty required field', 'adj_factor.csv', '300750.SZ,20240104', (f) => f.with(2, '')],
    ['an extra field', 'adj_factor.csv', '300750.SZ,20240105', (f) => [...f, '1']],
  ]
  it.each(cases)('reports %s as the row parser does and writes nothing', async (_name, file, prefix, edit) => {
    let expected = ''
    const dir = await bundleCopy((d) =>
      editLines(d, file, (lines) => {
        const line = lineOf(lines, prefix)
        lines[line - 1] = edit(lines[line - 1]!.split(',')).join(',')
        expected = `${file}:${line}: ${parserReason(file, lines[0]!, lines[line - 1]!)}`
        return lines
      }),
    )
    const err = await failure(runImport(t, dir))
    expect(err).toBeInstanceOf(ImportError)
    expect(err.message).toBe(expected)
    expect(await rows(t, STORE)).toEqual([{ bars: 0, securities: 0, calendar: 0, financials: 0 }])
    expect(await rows(t, BAR_INDEXES)).toEqual([{ indexname: 'daily_bars_date' }, { indexname: 'daily_bars_pkey' }])
  })

  it('names a price that is no number in the words of the row parser', async () => {
    const dir = await bundleCopy((d) =>
      editLines(d, 'daily.csv', (lines) =>
        lines.map((l, i) => (i === 2 ? l.replace(/^([^,]*,[^,]*,)[^,]*/, '$1abc') : l)),
      ),
    )
    expect((await failure(runImport(t, dir))).message).toBe('daily.csv:3: open "abc" is not a number')
  })

  it('refuses a repeated bar of a first load, naming both lines, and leaves daily_bars empty with its indexes', async () => {
    let line = 0
    const dir = await bundleCopy(async (d) => {
      await editLines(d, 'daily.csv', (lines) => {
        line = lines.filter((l) => l !== '').length + 1
        return [...lines.filter((l) => l !== ''), lines[1]!, '']
      })
      // as many factors as bars, so the INSERT's own count cannot tell
      await editLines(d, 'adj_factor.csv', (lines) => [...lines.filter((l) => l !== ''), lines[1]!, ''])
    })
    const err = await failure(runImport(t, dir))
    expect(err.message).toBe(`daily.csv:${line}: repeats (code, trade_date) = (600519.SH, 2024-01-02) of line 2`)
    expect(await rows(t, STORE)).toEqual([{ bars: 0, securities: 0, calendar: 0, financials: 0 }])
    expect(await rows(t, BAR_INDEXES)).toEqual([{ indexname: 'daily_bars_date' }, { indexname: 'daily_bars_pkey' }])
  })

  it('refuses a bar without its factor when a factor of no bar makes up the count', async () => {
    let missing = 0
    const dir = await bundleCopy(async (d) => {
      const daily = (await readFile(path.join(d, 'daily.csv'), 'utf8')).split('\n')
      const adj = (await readFile(path.join(d, 'adj_factor.csv'), 'utf8')).split('\n').filter((l) => l !== '')
      const key = (line: string): string => line.split(',').slice(0, 2).join(',')
      const bars = new Set(daily.map(key))
      const kept = adj.filter((l, i) => i === 0 || (bars.has(key(l)) && !l.startsWith('300750.SZ,20240105')))
      missing = lineOf(daily, '300750.SZ,20240105')
      await writeFile(path.join(d, 'adj_factor.csv'), `${[...kept, '300750.SZ,20200102,1'].join('\n')}\n`)
    })
    const err = await failure(runImport(t, dir))
    expect(err.message).toBe(
      `daily.csv:${missing}: bar of 300750.SZ on 2024-01-05 has no adjustment factor (adj_factor.csv has no row for it); add tushare adj_factor for the same days`,
    )
    expect(await rows(t, STORE)).toEqual([{ bars: 0, securities: 0, calendar: 0, financials: 0 }])
  })

  it('refuses a repeated factor when a bar without its factor makes up the count', async () => {
    let repeat = 0
    const dir = await bundleCopy(async (d) => {
      const daily = (await readFile(path.join(d, 'daily.csv'), 'utf8')).split('\n')
      const adj = (await readFile(path.join(d, 'adj_factor.csv'), 'utf8')).split('\n').filter((l) => l !== '')
      const key = (line: string): string => line.split(',').slice(0, 2).join(',')
      const bars = new Set(daily.map(key))
      // only the factors of the bundle's bars, then one bar's factor replaced by a repeat of line 2's
      const kept = adj.filter((l, i) => i === 0 || bars.has(key(l)))
      repeat = kept.findIndex((l) => l.startsWith('300750.SZ,20240105'))
      kept[repeat] = kept[1]!
      repeat += 1
      await writeFile(path.join(d, 'adj_factor.csv'), `${kept.join('\n')}\n`)
    })
    const err = await failure(runImport(t, dir))
    expect(err.message).toBe(`adj_factor.csv:${repeat}: repeats (code, trade_date) = (600519.SH, 2024-01-02) of line 2`)
    expect(await rows(t, STORE)).toEqual([{ bars: 0, securities: 0, calendar: 0, financials: 0 }])
  })
})

describe('tushare import: abort while COPY reads a file', () => {
  let t: TestDatabase
  beforeAll(async () => {
    t = await createTestDatabase()
  })
  afterAll(() => t.drop())

  it('rolls the bundle back, and the next import loads it whole', async () => {
    const controller = new AbortController()
    let read = 0
    const progress: Progress = {
      ...silentProgress,
      start: (label) => {
        if (label === 'daily.csv') read = 0
      },
      tick: (n = 1) => {
        read += n
        if (read > 40_000) controller.abort(new Error('interrupted in daily.csv'))
      },
    }
    const err = await failure(runImport(t, BUNDLE, { signal: controller.signal, progress }))
    expect(err.message).toBe('interrupted in daily.csv')
    expect(await rows(t, STORE)).toEqual([{ bars: 0, securities: 0, calendar: 0, financials: 0 }])
    const { logged, result } = await runImport(t, BUNDLE)
    expect(logged.find((e) => e.file === 'daily.csv')?.msg).toBe('staged by COPY')
    expect(result.files.find((f) => f.file === 'daily.csv')).toMatchObject({ rows: 861, inserted: 861 })
  })
})

describe('tushare import: files COPY would read otherwise', () => {
  let plain: TestDatabase
  let odd: TestDatabase
  let plainLog: Record<string, unknown>[]
  let oddLog: Record<string, unknown>[]
  beforeAll(async () => {
    plain = await createTestDatabase()
    odd = await createTestDatabase()
    plainLog = (await runImport(plain, BUNDLE)).logged
    // the same values as the row parser also reads them: a volume with an exponent (PostgreSQL refuses the
    // shifted cast), and factors with quotes, CRLF, blanks and lower case (bytes COPY would read otherwise)
    const dir = await bundleCopy(async (d) => {
      await editLines(d, 'daily.csv', (lines) =>
        lines.map((l) => l.replace(/^(600519\.SH,20240102,(?:[^,]*,){7})21954\.88,/, '$12195488e-2,')),
      )
      await editLines(d, 'adj_factor.csv', (lines) =>
        lines.map((l, i) => {
          if (i === 0 || l === '') return l
          const f = l.split(',')
          if (i === 1) f[0] = `"${f[0]}"`
          if (i === 2) f[2] = ` ${f[2]} `
          if (i === 3) f[0] = f[0]!.toLowerCase()
          return `${f.join(',')}\r`
        }),
      )
    })
    oddLog = (await runImport(odd, dir)).logged
  })
  afterAll(async () => {
    await plain.drop()
    await odd.drop()
  })

  const stagedBy = (logged: Record<string, unknown>[], file: string): string | undefined =>
    logged.find((e) => e.file === file && (e.msg === 'staged by COPY' || e.msg === 'staging the file row by row'))
      ?.msg as string | undefined

  it('stages the plain bundle by COPY', () => {
    expect(stagedBy(plainLog, 'daily.csv')).toBe('staged by COPY')
    expect(stagedBy(plainLog, 'adj_factor.csv')).toBe('staged by COPY')
  })

  it('reads such files row by row into the same bars', async () => {
    expect(stagedBy(oddLog, 'daily.csv')).toBe('staging the file row by row')
    expect(stagedBy(oddLog, 'adj_factor.csv')).toBe('staging the file row by row')
    const bars = await rows(plain, ALL_BARS)
    expect(bars.length).toBeGreaterThan(800)
    expect(await rows(odd, ALL_BARS)).toEqual(bars)
  })
})

describe('the byte check of a plain record', () => {
  const rule = (kind: FieldRule['kind'], required = true): FieldRule => ({ kind, required })
  const spec = FILE_SPECS.tushare.find((s) => s.file === 'daily_basic.csv')!
  // pe_ttm: a number without range or unit, as the row parser reads it
  const plan = planRows(spec, ['ts_code', 'trade_date', 'pe_ttm'])
  const parserTakes = (column: number, value: string): boolean => {
    try {
      plan.cell(column, value)
      return true
    } catch {
      return false
    }
  }
  const plainField = (kind: FieldRule['kind'], value: string): boolean =>
    plainRecords([rule('text'), rule(kind)], [Buffer.from(`600519.SH,${value}\n`)])

  const numbers = ['1', '12.5', '1.', '.5', '+1', '-0', '-1.5e3', '2E-7', '1e', 'e1', '.', '-', '+.', '1.2.3', '1,5']
  const oddNumbers = [' 1', '1 ', 'NaN', 'Infinity', '-inf', '0x1A', '1_000', '１', '1e+', '--1', '1e5.5']
  it.each([...numbers, ...oddNumbers])('takes the number %j only when the row parser takes it as written', (value) => {
    const takes = plainField('number', value)
    if (takes) expect(parserTakes(2, value)).toBe(true)
    if (value.trim() === value && !value.includes(',')) expect(takes).toBe(parserTakes(2, value))
  })

  const days = [
    '20240229',
    '20230229',
    '20241301',
    '20240100',
    '20241231',
    '00010101',
    '00000101',
    '2024010',
    '202401011',
    '2024-01-01',
  ]
  it.each(days)('takes the day %j exactly when the row parser does', (value) => {
    expect(plainField('compact-date', value)).toBe(parserTakes(1, value))
  })

  it('refuses a record of another width, a blank line, quotes, CR and backslash; reads across chunks', () => {
    const rules = [rule('text'), rule('number'), rule('number', false)]
    const check = (...chunks: string[]): boolean =>
      plainRecords(
        rules,
        chunks.map((c) => Buffer.from(c)),
      )
    expect(check('a,1,2\nb,3,\n')).toBe(true)
    expect(check('a,1,2\nb,3')).toBe(false)
    expect(check('a,1,2\nb,3,4,5\n')).toBe(false)
    expect(check('a,1,2\n\nb,3,4\n')).toBe(false)
    expect(check('"a",1,2\n')).toBe(false)
    expect(check('a,1,2\r\n')).toBe(false)
    expect(check('a\\,1,2\n')).toBe(false)
    expect(check('a,1', '2,3\nb,4', ',\n')).toBe(true)
    expect(check('a,1', 'x,3\n')).toBe(false)
    expect(check('a,,2\n')).toBe(false)
  })
})
