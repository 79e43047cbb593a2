import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { sql } from 'kysely'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { CsvReader, type CsvRecord } from '../../src/jobs/import/csv-reader.js'
import { ImportError, type ImportResult, importDirectory } from '../../src/jobs/import/import-job.js'
import { planRows } from '../../src/jobs/import/row-parser.js'
import { type Progress, silentProgress } from '../../src/jobs/progress.js'
import { createLogger } from '../../src/logger.js'
import { FILE_SPECS, type FileSpec, type ImportFormat } from '../../src/storage/csv-formats.js'
import { createImportStore } from '../../src/storage/import.repository.js'
import { failure, rows } from '../support/queries.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'

const DATA = fileURLToPath(new URL('../data/import/', import.meta.url))
const NATIVE = path.join(DATA, 'native')
const broken = (name: string): string => path.join(DATA, 'broken', name)
const log = createLogger({ logLevel: 'silent' })

function runImport(
  t: TestDatabase,
  dir: string,
  format: ImportFormat = 'native',
  options: { signal?: AbortSignal; progress?: Progress } = {},
): Promise<ImportResult> {
  const deps = { imports: createImportStore(t.pool), log, progress: options.progress ?? silentProgress }
  return importDirectory(deps, { dir, format }, options.signal ?? new AbortController().signal)
}

const TABLES: Record<string, string> = {
  securities: 'code',
  daily_bars: 'code, trade_date',
  index_bars: 'code, trade_date',
  daily_basics: 'code, trade_date',
  financials: 'code, end_date, ann_date',
  eps_forecasts: 'code, as_of, fiscal_year',
  theme_edges: 'theme, segment, code, valid_from',
  theme_events: 'trade_date, theme, title',
  holdings: 'code, as_of',
}

/** Every imported table, every row, in key order: equal snapshots mean nothing was written. */
async function snapshot(t: TestDatabase): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {}
  for (const [table, order] of Object.entries(TABLES)) {
    out[table] = (await sql.raw(`select * from ${table} order by ${order}`).execute(t.db)).rows
  }
  return out
}

const temps: string[] = []
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'stockplan-import-'))
  temps.push(dir)
  return dir
}
afterAll(async () => {
  for (const dir of temps) await rm(dir, { recursive: true, force: true })
})

describe('import: native files', () => {
  let t: TestDatabase
  let first: ImportResult
  beforeAll(async () => {
    t = await createTestDatabase()
    first = await runImport(t, NATIVE)
  })
  afterAll(async () => {
    await t.drop()
  })

  it('loads every file in dependency order and counts the rows', () => {
    expect(first.files.map((f) => [f.file, f.rows, f.inserted, f.updated, f.unchanged])).toEqual([
      ['securities.csv', 6, 6, 0, 0],
      ['bars.csv', 5, 5, 0, 0],
      ['index_bars.csv', 3, 3, 0, 0],
      ['basics.csv', 3, 3, 0, 0],
      ['financials.csv', 3, 3, 0, 0],
      ['forecasts.csv', 3, 3, 0, 0],
      ['theme_edges.csv', 4, 4, 0, 0],
      ['theme_events.csv', 3, 3, 0, 0],
      ['holdings.csv', 2, 2, 0, 0],
    ])
    expect(first.summary).toMatch(
      /^imported 9 files \(native\) in [\d.]+ s: 32 rows, 32 inserted, 0 updated, 0 unchanged$/,
    )
    for (const file of first.files) expect(file.ms).toBeGreaterThanOrEqual(0)
  })

  it('normalises codes, derives exchange and board, keeps quoted commas and empty fields as NULL', async () => {
    expect(await rows(t, 'select * from securities order by code')).toEqual([
      {
        code: '000001.SZ',
        name: '平安银行, A股',
        exchange: 'SZ',
        board: 'main',
        industry: '银行',
        list_date: '1991-04-03',
        delist_date: null,
        list_status: null,
      },
      {
        code: '300750.SZ',
        name: '宁德时代',
        exchange: 'SZ',
        board: 'chinext',
        industry: '电池',
        list_date: '2018-06-11',
        delist_date: null,
        list_status: null,
      },
      {
        code: '600001.SH',
        name: '退市样本',
        exchange: 'SH',
        board: 'main',
        industry: '钢铁',
        list_date: '1998-01-22',
        delist_date: '2009-12-29',
        list_status: null,
      },
      {
        code: '600519.SH',
        name: '贵州茅台',
        exchange: 'SH',
        board: 'main',
        industry: '白酒',
        list_date: '2001-08-27',
        delist_date: null,
        list_status: null,
      },
      {
        code: '688981.SH',
        name: '中芯国际',
        exchange: 'SH',
        board: 'star',
        industry: '半导体',
        list_date: '2020-07-16',
        delist_date: null,
        list_status: null,
      },
      {
        code: '920799.BJ',
        name: '艾融软件',
        exchange: 'BJ',
        board: 'bse',
        industry: null,
        list_date: '2019-12-27',
        delist_date: null,
        list_status: null,
      },
    ])
  })

  it('stores bars with booleans, defaults and NULLs', async () => {
    const bars = await rows(t, 'select * from daily_bars order by code, trade_date')
    expect(bars.map((b) => `${b.code} ${b.trade_date}`)).toEqual([
      '000001.SZ 2024-01-02',
      '000001.SZ 2024-01-03',
      '300750.SZ 2024-01-02',
      '600519.SH 2024-01-02',
      '600519.SH 2024-01-03',
    ])
    expect(bars[3]).toEqual({
      code: '600519.SH',
      trade_date: '2024-01-02',
      open: 1715,
      high: 1718.19,
      low: 1678.1,
      close: 1685.01,
      pre_close: 1725,
      volume: 3215646,
      amount: 5470334179.5,
      turnover_rate: 0.26,
      adj_factor: 8.4153,
      is_suspended: false,
      is_st: false,
      up_limit: null,
      down_limit: null,
    })
    expect(bars[0]).toMatchObject({ adj_factor: 1, is_suspended: false, is_st: true })
    expect(bars[1]).toMatchObject({ is_suspended: true, is_st: true })
    expect(bars[2]).toMatchObject({
      pre_close: null,
      turnover_rate: null,
      volume: 0,
      is_suspended: true,
      adj_factor: 1,
    })
  })

  it('keeps index codes as given and fills the other tables', async () => {
    expect(await rows(t, 'select code, close, volume from index_bars order by code')).toEqual([
      { code: '000001.SH', close: 2962.28, volume: 30000000000 },
      { code: '000300.SH', close: 3386.35, volume: 11563522000 },
      { code: '399006.SZ', close: 1851.32, volume: 1584637100 },
    ])
    expect(await rows(t, "select * from daily_basics where code = '300750.SZ'")).toEqual([
      { code: '300750.SZ', trade_date: '2024-01-02', pe_ttm: null, pb: 4.83, total_mv: 725832000000, circ_mv: null },
    ])
    expect(await rows(t, "select * from financials where code = '600519.SH' order by end_date desc limit 1")).toEqual([
      {
        code: '600519.SH',
        end_date: '2023-12-31',
        ann_date: '2024-04-03',
        eps: 59.49,
        bvps: 204.84,
        roe: 0.3418,
        gross_margin: 0.9196,
        ocf_to_np: 0.8868,
        debt_to_assets: 0.194,
        revenue_yoy: 0.1804,
        np_yoy: 0.1916,
      },
    ])
    expect(await rows(t, "select * from eps_forecasts where code = '600519.SH' order by fiscal_year")).toEqual([
      { code: '600519.SH', as_of: '2024-01-02', fiscal_year: 2024, eps_mean: 68.93, eps_low: 65.1, eps_high: 72.5 },
      { code: '600519.SH', as_of: '2024-01-02', fiscal_year: 2025, eps_mean: 78.4, eps_low: null, eps_high: null },
    ])
    expect(await rows(t, 'select * from theme_edges order by weight desc, code')).toEqual([
      {
        theme: '新能源车',
        segment: '动力电池',
        code: '300750.SZ',
        weight: 1,
        evidence: '全球装机量第一\n(2023 年报)',
        track: 'leader',
        valid_from: '-infinity',
        valid_to: null,
      },
      {
        theme: '白酒消费',
        segment: '高端白酒',
        code: '600519.SH',
        weight: 0.95,
        evidence: '飞天茅台, 出厂价上调',
        track: 'leader',
        valid_from: '-infinity',
        valid_to: null,
      },
      {
        theme: '半导体',
        segment: '晶圆代工',
        code: '688981.SH',
        weight: 0.8,
        evidence: '',
        track: '',
        valid_from: '-infinity',
        valid_to: null,
      },
      {
        theme: '金融',
        segment: '银行',
        code: '000001.SZ',
        weight: 0,
        evidence: '',
        track: '',
        valid_from: '-infinity',
        valid_to: null,
      },
    ])
    expect(await rows(t, 'select title, intensity from theme_events order by intensity')).toEqual([
      { title: '春节备货', intensity: 0 },
      { title: '固态电池 "突破" 消息', intensity: 72.5 },
      { title: '国产替代加速', intensity: 100 },
    ])
    expect(await rows(t, 'select * from holdings order by code')).toEqual([
      { code: '000001.SZ', qty: 2000, cost_price: null, updated_at: '2024-01-03', as_of: '-infinity' },
      { code: '600519.SH', qty: 100, cost_price: 1650.5, updated_at: '2024-01-03', as_of: '-infinity' },
    ])
  })

  it('re-importing the same files changes nothing', async () => {
    const before = await snapshot(t)
    const again = await runImport(t, NATIVE)
    expect(again.files.map((f) => [f.file, f.inserted, f.updated, f.unchanged === f.rows])).toEqual(
      first.files.map((f) => [f.file, 0, 0, true]),
    )
    expect(await snapshot(t)).toEqual(before)
  })

  it('updates a changed value and counts only that row', async () => {
    const dir = await tempDir()
    const bars = await readFile(path.join(NATIVE, 'bars.csv'), 'utf8')
    await writeFile(path.join(dir, 'bars.csv'), bars.replace(',1694.00,1685.01,', ',1699.50,1685.01,'))
    const result = await runImport(t, dir)
    expect(result.files).toEqual([
      expect.objectContaining({ file: 'bars.csv', rows: 5, inserted: 0, updated: 1, unchanged: 4 }),
    ])
    expect(
      await rows(t, "select close from daily_bars where code = '600519.SH' and trade_date = '2024-01-03'"),
    ).toEqual([{ close: 1699.5 }])
  })

  it('inserts new rows next to existing ones and leaves columns absent from the file alone', async () => {
    const dir = await tempDir()
    await writeFile(
      path.join(dir, 'bars.csv'),
      'trade_date,code,open,high,low,close,volume,amount\n2024-01-03,600519.SH,1681.11,1695.22,1676.10,1694.00,2022431,3410231544\n2024-01-04,600519.SH,1,2,1,2,3,4\n',
    )
    const result = await runImport(t, dir)
    expect(result.files[0]).toMatchObject({ rows: 2, inserted: 1, updated: 1, unchanged: 0 })
    expect(
      await rows(
        t,
        "select trade_date, close, adj_factor, turnover_rate from daily_bars where code = '600519.SH' order by 1",
      ),
    ).toEqual([
      { trade_date: '2024-01-02', close: 1685.01, adj_factor: 8.4153, turnover_rate: 0.26 },
      { trade_date: '2024-01-03', close: 1694, adj_factor: 8.4153, turnover_rate: 0.16 },
      { trade_date: '2024-01-04', close: 2, adj_factor: 1, turnover_rate: null },
    ])
  })
})

describe('import: bad rows', () => {
  let t: TestDatabase
  let loaded: Record<string, unknown[]>
  beforeAll(async () => {
    t = await createTestDatabase()
    await runImport(t, NATIVE)
    loaded = await snapshot(t)
  })
  afterAll(async () => {
    await t.drop()
  })
  afterEach(async () => {
    // every case must leave the store exactly as the good import left it
    expect(await snapshot(t)).toEqual(loaded)
  })

  const cases: Array<[string, string]> = [
    ['bad-date', 'bars.csv:3: trade_date "2024-02-30" is not a real date'],
    ['seven-digit-code', 'bars.csv:4: "6005190.SH" is not a stock code: 7 digits, a symbol has 6'],
    ['wrong-exchange', 'bars.csv:2: "600519.SZ" says SZ but 600519 trades on SH'],
    ['non-numeric-price', 'bars.csv:3: close "abc" is not a number'],
    ['missing-column', 'bars.csv:1: missing column "close"'],
    ['high-below-low', 'bars.csv:3: high 8.90 is below low 9.50'],
    ['field-count', 'bars.csv:3: expected 13 fields as in the header, found 12'],
    ['duplicate-key', 'bars.csv:4: repeats the key (code, trade_date) = (600519.SH, 2024-01-02) of line 2'],
    ['quoted-lines', 'securities.csv:5: list_date "2018-13-01" is not a real date'],
    ['board-mismatch', 'securities.csv:3: board "main" does not match code 300750.SZ (chinext)'],
  ]
  it.each(cases)('%s: %s', async (name, message) => {
    const err = await failure(runImport(t, broken(name)))
    expect(err).toBeInstanceOf(ImportError)
    expect(err.message).toBe(message)
    const [file, line] = message.split(':')
    expect(err).toMatchObject({ file, line: Number(line) })
  })

  it('names unknown columns', async () => {
    const err = await failure(runImport(t, broken('unknown-column')))
    expect(err.message).toMatch(/^bars\.csv:1: unknown columns "foo", "bar"; bars\.csv takes code, trade_date, open,/)
  })

  it('rejects an empty file and a quote left open', async () => {
    const dir = await tempDir()
    await writeFile(path.join(dir, 'holdings.csv'), '')
    expect((await failure(runImport(t, dir))).message).toBe('holdings.csv:1: empty file: no header row')
    await writeFile(path.join(dir, 'holdings.csv'), 'code,qty,cost_price,updated_at\n600519.SH,1,"2,2024-01-01\n')
    expect((await failure(runImport(t, dir))).message).toBe('holdings.csv:2: quoted field is not closed')
  })
})

describe('import: transactions per file', () => {
  let t: TestDatabase
  beforeAll(async () => {
    t = await createTestDatabase()
  })
  afterAll(async () => {
    await t.drop()
  })

  it('keeps the files committed before a bad file', async () => {
    await runImport(t, NATIVE)
    const before = await snapshot(t)
    const err = await failure(runImport(t, broken('partial')))
    expect(err.message).toBe('bars.csv:4: volume -100 is negative')
    const after = await snapshot(t)
    expect(after.daily_bars).toEqual(before.daily_bars)
    expect(await rows(t, "select name from securities where code = '600519.SH'")).toEqual([{ name: '贵州茅台酒' }])
    expect({ ...after, securities: [] }).toEqual({ ...before, securities: [] })
  })
})

describe('import: first load into empty tables', () => {
  it('reports a repeated key and writes nothing of that file', async () => {
    const t = await createTestDatabase()
    try {
      const err = await failure(runImport(t, broken('duplicate-key')))
      expect(err.message).toBe('bars.csv:4: repeats the key (code, trade_date) = (600519.SH, 2024-01-02) of line 2')
      expect(await rows(t, 'select count(*)::int as n from daily_bars')).toEqual([{ n: 0 }])
      const loaded = await runImport(t, NATIVE)
      expect(loaded.files.every((f) => f.inserted === f.rows && f.updated === 0)).toBe(true)
    } finally {
      await t.drop()
    }
  })
})

describe('import: abort', () => {
  let t: TestDatabase
  beforeAll(async () => {
    t = await createTestDatabase()
  })
  afterAll(async () => {
    await t.drop()
  })

  const countAll = async (): Promise<Record<string, number>> => {
    const out: Record<string, number> = {}
    for (const table of Object.keys(TABLES)) {
      out[table] = Number((await rows(t, `select count(*) as n from ${table}`))[0]?.n)
    }
    return out
  }

  it('loads nothing when the signal fired before the start', async () => {
    const controller = new AbortController()
    controller.abort(new Error('stop'))
    expect((await failure(runImport(t, NATIVE, 'native', { signal: controller.signal }))).message).toBe('stop')
    expect(Object.values(await countAll()).every((n) => n === 0)).toBe(true)
  })

  it('rolls back the file being read when the signal fires, keeping the files before it', async () => {
    const controller = new AbortController()
    const progress: Progress = {
      ...silentProgress,
      start: (label) => {
        if (label === 'bars.csv') controller.abort(new Error('interrupted'))
      },
    }
    const err = await failure(runImport(t, NATIVE, 'native', { signal: controller.signal, progress }))
    expect(err.message).toBe('interrupted')
    expect(await countAll()).toMatchObject({ securities: 6, daily_bars: 0, index_bars: 0, holdings: 0 })
  })

  it('rolls back when the signal fires after the last chunk was copied', async () => {
    const dir = await tempDir()
    const lines = ['code,trade_date,open,high,low,close,volume,amount']
    for (let i = 0; i < 30_000; i++) {
      const day = new Date(Date.UTC(2020, 0, 1) + (i % 1000) * 86_400_000).toISOString().slice(0, 10)
      lines.push(`${600000 + Math.floor(i / 1000)}.SH,${day},1,2,1,1.5,100,150`)
    }
    const text = `${lines.join('\n')}\n`
    await writeFile(path.join(dir, 'bars.csv'), text)
    const controller = new AbortController()
    let read = 0
    const progress: Progress = {
      ...silentProgress,
      tick: (n = 1) => {
        read += n
        if (read >= Buffer.byteLength(text)) controller.abort(new Error('late stop'))
      },
    }
    const before = await countAll()
    const err = await failure(runImport(t, dir, 'native', { signal: controller.signal, progress }))
    expect(err.message).toBe('late stop')
    expect(await countAll()).toEqual(before)
  })
})

describe('csv reader', () => {
  const text = 'a,b,c\r\n1,"x, y",3\n\n"multi\nline ""quoted""",2,\n4,5,6'
  const expected = [
    { line: 1, fields: ['a', 'b', 'c'] },
    { line: 2, fields: ['1', 'x, y', '3'] },
    { line: 4, fields: ['multi\nline "quoted"', '2', ''] },
    { line: 6, fields: ['4', '5', '6'] },
  ]

  const read = (...chunks: string[]): CsvRecord[] => {
    const records: CsvRecord[] = []
    const sink = (fields: string[], line: number): void => {
      records.push({ line, fields })
    }
    const reader = new CsvReader()
    for (const chunk of chunks) reader.push(chunk, sink)
    reader.end(sink)
    return records
  }

  it('gives each record its first physical line, whatever the chunk boundaries', () => {
    for (let split = 0; split <= text.length; split++) {
      for (const step of [1, 2, 3, 7, text.length]) {
        const chunks = [text.slice(0, split)]
        for (let i = split; i < text.length; i += step) chunks.push(text.slice(i, i + step))
        expect(read(...chunks), `split ${split} step ${step}`).toEqual(expected)
      }
    }
  })

  it('strips a byte-order mark and rejects text after a closing quote', () => {
    expect(read('\ufeffcode\n600519\n')).toEqual([
      { line: 1, fields: ['code'] },
      { line: 2, fields: ['600519'] },
    ])
    expect(() => read('a\n"x"y,1\n')).toThrow('unexpected text after a closing quote')
  })
})

describe('row parser', () => {
  const spec = (format: ImportFormat, file: string): FileSpec => FILE_SPECS[format].find((s) => s.file === file)!
  const parse = (format: ImportFormat, file: string, header: string, row: string): unknown => {
    try {
      return planRows(spec(format, file), header.split(',')).parse(row.split(','))
    } catch (err) {
      return (err as Error).message
    }
  }

  it('quotes a bad value at most 40 characters long, its control characters escaped, however large the cell', () => {
    const bar = 'ts_code,trade_date,open,high,low,close,pre_close,change,pct_chg,vol,amount'
    const hostile = `\u001b[2J\u001b]0;owned\u0007${'x'.repeat(2_000_000)}`
    const message = parse('tushare', 'daily.csv', bar, `600519.SH,20240102,1,2,1,${hostile},1,0,0,1,1`) as string
    expect(message).toBe(
      `close "\\u{1b}[2J\\u{1b}]0;owned\\u{7}${'x'.repeat(26)}… (1999974 more characters)" is not a number`,
    )
    expect(message).not.toMatch(/\p{Cc}/u)
    const code = parse('tushare', 'daily.csv', bar, `${hostile},20240102,1,2,1,1,1,0,0,1,1`) as string
    expect(code).toBe(
      `"\\u{1b}[2J\\u{1b}]0;owned\\u{7}${'x'.repeat(26)}… (1999974 more characters)" is not a ts_code: use 6 digits and .SH, .SZ or .BJ, e.g. 600519.SH`,
    )
  })

  it('checks ranges, booleans, integers and index codes', () => {
    expect(parse('native', 'theme_edges.csv', 'theme,segment,code,weight', 't,s,600519,1.5')).toBe(
      'weight 1.5 is outside 0..1',
    )
    expect(parse('native', 'theme_events.csv', 'trade_date,theme,intensity,title', '2024-01-02,t,100.5,x')).toBe(
      'intensity 100.5 is outside 0..100',
    )
    expect(parse('native', 'forecasts.csv', 'code,as_of,fiscal_year', '600519,2024-01-02,2024.5')).toBe(
      'fiscal_year "2024.5" is not an integer',
    )
    const bar = 'code,trade_date,open,high,low,close,volume,amount,is_st'
    expect(parse('native', 'bars.csv', bar, '600519,2024-01-02,1,2,1,1,1,1,yes')).toBe(
      'is_st "yes" is not a boolean (true, false, 1 or 0)',
    )
    expect(parse('native', 'bars.csv', bar, '600519,2024-01-02,1,2,1,1,1,Infinity,TRUE')).toBe(
      'amount "Infinity" is not a number',
    )
    expect(parse('native', 'bars.csv', bar, '600519,2024-01-02,1,2,1,1,1,1e999,TRUE')).toBe(
      'amount "1e999" is not a finite number',
    )
    expect(parse('native', 'bars.csv', bar, '600519,2024-01-02,1,2,1,,1,1,1')).toBe('close is empty')
    expect(parse('native', 'index_bars.csv', bar, '000300,2024-01-02,1,2,1,1,1,1,0')).toBe(
      '"000300" is not an index code: use 6 digits with .SH or .SZ, e.g. 000300.SH',
    )
    expect(parse('native', 'index_bars.csv', bar, 'SZ.399006,2024-01-02,1,2,1,1,1,1,0')).toEqual([
      '399006.SZ',
      '2024-01-02',
      '1',
      '2',
      '1',
      '1',
      '1',
      '1',
      'f',
    ])
  })

  it('shifts tushare units by the decimal exponent and reads YYYYMMDD', () => {
    const header = 'ts_code,trade_date,open,high,low,close,vol,amount'
    expect(parse('tushare', 'daily.csv', header, 'sh600519,20240229,1,2,1,1,1.5e3,12.5')).toBe(
      '"sh600519" is not a ts_code: use 6 digits and .SH, .SZ or .BJ, e.g. 600519.SH',
    )
    expect(parse('tushare', 'daily.csv', header, '600519.sh,20240229,1,2,1,1,1.5e3,12.5')).toEqual([
      '600519.SH',
      '2024-02-29',
      '1',
      '2',
      '1',
      '1',
      '1.5e5',
      '12.5e3',
    ])
    expect(parse('tushare', 'daily.csv', header, '600519.SH,2023-02-28,1,2,1,1,1,1')).toBe(
      'trade_date "2023-02-28" is not a date (YYYYMMDD)',
    )
    expect(parse('tushare', 'daily.csv', header, '600519.SH,20230229,1,2,1,1,1,1')).toBe(
      'trade_date "20230229" is not a real date',
    )
    expect(parse('tushare', 'stock_basic.csv', 'ts_code,name,exchange', '600519.SH,x,SZSE')).toBe(
      'exchange "SZSE" does not match code 600519.SH (SH)',
    )
  })

  it('takes the exchange from the ts_code suffix, so a prefix no rule lists yet imports', () => {
    const header = 'ts_code,name,list_status'
    expect(parse('tushare', 'stock_basic.csv', header, '302132.SZ,中航成飞,L')).toEqual([
      '302132.SZ',
      '中航成飞',
      'SZ',
      'chinext',
      'L',
    ])
    expect(parse('tushare', 'stock_basic.csv', header, '304001.SZ,x,L')).toEqual([
      '304001.SZ',
      'x',
      'SZ',
      'chinext',
      'L',
    ])
    expect(parse('tushare', 'stock_basic.csv', header, '606001.SH,x,P')).toEqual(['606001.SH', 'x', 'SH', 'main', 'P'])
    expect(parse('tushare', 'stock_basic.csv', header, '600519.SZ,x,L')).toBe(
      '"600519.SZ" says SZ but 600519 trades on SH',
    )
    expect(parse('tushare', 'stock_basic.csv', header, '600519.SH,x,X')).toBe('list_status "X" is not one of L, D, P')
  })
})
