import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServices, type Services } from '../../src/compose.js'
import { type ImportArgs, type ImportResult, importDirectory } from '../../src/jobs/import/import-job.js'
import { silentProgress } from '../../src/jobs/progress.js'
import { createLogger } from '../../src/logger.js'
import { createImportStore } from '../../src/storage/import.repository.js'
import { CONCEPT_EVIDENCE, CONCEPT_SEGMENT } from '../../src/storage/tushare-merge.js'
import { testConfig } from '../support/config.js'
import { failure, rows } from '../support/queries.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'

const DATA = fileURLToPath(new URL('../data/tushare/', import.meta.url))
const BUNDLE = path.join(DATA, 'bundle')
const log = createLogger({ logLevel: 'silent' })
const signal = new AbortController().signal

function runImport(t: TestDatabase, dir: string, options: Partial<ImportArgs> = {}): Promise<ImportResult> {
  return importDirectory(
    { imports: createImportStore(t.pool), log, progress: silentProgress },
    { dir, format: 'tushare', ...options },
    signal,
  )
}

const temps: string[] = []
async function bundleCopy(change: (dir: string) => Promise<void>): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'stockplan-tushare-'))
  temps.push(dir)
  await cp(BUNDLE, dir, { recursive: true })
  await change(dir)
  return dir
}

const TABLE_COUNTS = `select (select count(*) from daily_bars)::int as bars, (select count(*) from securities)::int as securities,
  (select count(*) from financials)::int as financials, (select count(*) from trading_calendar)::int as calendar`

describe('tushare bundle import', () => {
  let t: TestDatabase
  let first: ImportResult
  beforeAll(async () => {
    t = await createTestDatabase()
    first = await runImport(t, BUNDLE)
  })
  afterAll(async () => {
    await t.drop()
    for (const dir of temps) await rm(dir, { recursive: true, force: true })
  })

  it('reads every file of the bundle', () => {
    expect(first.files.map((f) => [f.file, f.rows])).toEqual([
      ['stock_basic.csv', 12],
      ['index_daily.csv', 78],
      ['trade_cal.csv', 121],
      ['daily.csv', 861],
      ['adj_factor.csv', 864],
      ['daily_basic.csv', 861],
      ['fina_indicator.csv', 8],
      ['namechange.csv', 3],
      ['suspend_d.csv', 6],
      ['stk_limit.csv', 2],
      ['ths_index.csv', 2],
      ['ths_member.csv', 5],
      ['ths_daily.csv', 156],
    ])
    expect(first.files.find((f) => f.file === 'daily.csv')).toMatchObject({ inserted: 861, updated: 0 })
    expect(first.files.find((f) => f.file === 'suspend_d.csv')).toMatchObject({ inserted: 3 })
    // the update_flag 0 row of 600519.SH's 2023 report, superseded within the same announcement
    expect(first.files.find((f) => f.file === 'fina_indicator.csv')).toMatchObject({ inserted: 8, skipped: 1 })
    // per table, as a person reads them: the factors are attached to the bars, not "unchanged" rows
    expect(first.summary.split('\n').slice(1)).toEqual([
      '  securities: stock_basic.csv 12 inserted, 0 updated, 0 unchanged',
      '  index_bars: index_daily.csv 78 inserted, 0 updated, 0 unchanged',
      '  trading_calendar: trade_cal.csv 121 inserted, 0 updated, 0 unchanged',
      "  daily_bars: daily.csv 861 inserted, 0 updated, 0 unchanged; adj_factor.csv 861 attached to daily.csv's bars, " +
        '3 unchanged; suspend_d.csv 3 inserted, 0 updated, 0 unchanged, 3 skipped (intraday halts, ' +
        "days after the last bar or closed, or a bar already stored); stk_limit.csv 2 attached to daily.csv's bars",
      '  daily_basics: daily_basic.csv 861 inserted, 0 updated, 0 unchanged',
      '  financials: fina_indicator.csv 8 inserted, 0 updated, 0 unchanged, 1 skipped (corrections superseded within one announcement)',
      '  st_periods: namechange.csv 1 inserted, 0 updated, 0 unchanged, 2 skipped (names without ST)',
      '  concept_boards: ths_index.csv 2 inserted, 0 updated, 0 unchanged',
      '  theme_edges: ths_member.csv 4 inserted, 0 updated, 0 unchanged, 1 skipped (members gone without an ' +
        'out_date, or of a board ths_index does not name)',
      '  concept_bars: ths_daily.csv 156 inserted, 0 updated, 0 unchanged',
    ])
    expect(first.warnings).toEqual([])
  })

  it('takes the exchange from the ts_code suffix and the board from the code, with list status and dates', async () => {
    expect(
      await rows(
        t,
        `select code, exchange, board, list_status, list_date, delist_date from securities
         where code in ('302132.SZ', '689009.SH', '920799.BJ', '600087.SH', '900901.SH') order by code`,
      ),
    ).toEqual([
      {
        code: '302132.SZ',
        exchange: 'SZ',
        board: 'chinext',
        list_status: 'L',
        list_date: '2010-08-27',
        delist_date: null,
      },
      {
        code: '600087.SH',
        exchange: 'SH',
        board: 'main',
        list_status: 'D',
        list_date: '1997-06-17',
        delist_date: '2024-01-10',
      },
      {
        code: '689009.SH',
        exchange: 'SH',
        board: 'star',
        list_status: 'L',
        list_date: '2020-10-29',
        delist_date: null,
      },
      {
        code: '900901.SH',
        exchange: 'SH',
        board: 'b_share',
        list_status: 'L',
        list_date: '1992-01-21',
        delist_date: null,
      },
      { code: '920799.BJ', exchange: 'BJ', board: 'bse', list_status: 'L', list_date: '2019-12-27', delist_date: null },
    ])
  })

  it('stores bars in shares and yuan with their adjustment factor, turnover and limit prices', async () => {
    const [bar] = await rows(t, `select * from daily_bars where code = '600519.SH' and trade_date = '2024-01-02'`)
    // daily: vol 21954.88 lots, amount 3701153.67 thousand yuan
    expect(bar).toMatchObject({ close: 1685.8, pre_close: 1685, volume: 2195488, amount: 3701153670 })
    expect(bar).toMatchObject({ adj_factor: 8.4153, is_suspended: false, is_st: false, up_limit: null })
    expect(bar!.turnover_rate).toBe(0.1748)
    const [limits] = await rows(
      t,
      `select up_limit, down_limit, pre_close from daily_bars where code = '000001.SZ' and trade_date = '2024-04-30'`,
    )
    expect(limits!.up_limit).toBeCloseTo(Number(limits!.pre_close) * 1.1, 2)
    const [basic] = await rows(t, `select * from daily_basics where code = '600519.SH' and trade_date = '2024-01-02'`)
    // daily_basic total_mv 212109... 万元 -> yuan
    expect(basic!.total_mv).toBeCloseTo(1685.8 * 125619.78 * 10_000, -2)
    expect(await rows(t, `select count(*)::int as n from trading_calendar where is_open`)).toEqual([{ n: 78 }])
    expect(await rows(t, `select is_open from trading_calendar where cal_date = '2024-02-12'`)).toEqual([
      { is_open: false },
    ])
  })

  it('marks bars ST inside the namechange ST period only', async () => {
    const flags = await rows(
      t,
      `select trade_date, is_st from daily_bars where code = '600301.SH'
       and trade_date in ('2024-01-09', '2024-01-10', '2024-02-20', '2024-02-21') order by trade_date`,
    )
    expect(flags).toEqual([
      { trade_date: '2024-01-09', is_st: false },
      { trade_date: '2024-01-10', is_st: true },
      { trade_date: '2024-02-20', is_st: true },
      { trade_date: '2024-02-21', is_st: false },
    ])
    expect(await rows(t, 'select code, start_date, end_date from st_periods')).toEqual([
      { code: '600301.SH', start_date: '2024-01-10', end_date: '2024-02-20' },
    ])
  })

  it('writes whole-day suspensions as bars at the previous close, and leaves an intraday halt a normal bar', async () => {
    const bars = await rows(
      t,
      `select trade_date, open, close, pre_close, volume, amount, is_suspended from daily_bars
       where code = '000540.SZ' and trade_date between '2024-01-15' and '2024-01-19' order by trade_date`,
    )
    const before = bars[0]!.close
    expect(bars.map((b) => [b.trade_date, b.is_suspended])).toEqual([
      ['2024-01-15', false],
      ['2024-01-16', true],
      ['2024-01-17', true],
      ['2024-01-18', true],
      ['2024-01-19', false],
    ])
    for (const b of bars.slice(1, 4)) expect(b).toMatchObject({ open: before, close: before, volume: 0, amount: 0 })
    expect(
      await rows(t, `select is_suspended from daily_bars where code = '000001.SZ' and trade_date = '2024-01-31'`),
    ).toEqual([{ is_suspended: false }])
  })

  it('keeps every financial version, annualised, with OCF over net profit', async () => {
    const versions = await rows(
      t,
      `select end_date, ann_date, eps, roe, ocf_to_np, bvps, gross_margin, np_yoy from financials
       where code = '600519.SH' order by end_date, ann_date`,
    )
    expect(versions.map((v) => [v.end_date, v.ann_date])).toEqual([
      ['2023-12-31', '2024-04-03'],
      ['2024-03-31', '2024-04-25'],
      ['2024-03-31', '2024-05-20'],
    ])
    // annual report: the update_flag 1 row of the announcement, roe_yearly as given
    expect(versions[0]).toMatchObject({ eps: 59.49, bvps: 204.84, gross_margin: 0.9196, np_yoy: 0.1916 })
    expect(versions[0]!.roe).toBeCloseTo(0.3419, 6)
    expect(versions[0]!.ocf_to_np).toBeCloseTo(53.54 / 59.49, 6)
    // Q1 without roe_yearly: year-to-date x 4
    expect(versions[1]!.roe).toBeCloseTo(0.0892 * 4, 6)
    expect(versions[1]!.eps).toBeCloseTo(19.16 * 4, 6)
    expect(versions[2]!.roe).toBeCloseTo(0.088 * 4, 6)
    const [loss] = await rows(t, `select eps, roe, ocf_to_np from financials where code = '600301.SH'`)
    expect(loss).toEqual({ eps: -0.21, roe: -0.085, ocf_to_np: null })
  })

  it('re-importing the bundle changes nothing', async () => {
    const before = await rows(t, TABLE_COUNTS)
    const again = await runImport(t, BUNDLE)
    expect(again.files.filter((f) => f.inserted + f.updated > 0)).toEqual([])
    // unchanged bars took no factor and no limit price: nothing is reported as attached
    expect(again.files.find((f) => f.file === 'adj_factor.csv')).toMatchObject({
      attached: 0,
      unchanged: 864,
      skipped: 0,
    })
    expect(again.files.find((f) => f.file === 'stk_limit.csv')).toMatchObject({ attached: 0, unchanged: 2 })
    expect(await rows(t, TABLE_COUNTS)).toEqual(before)
  })

  it('refuses a bundle with a bar lacking its adjustment factor, naming the file and line, and writes nothing', async () => {
    const dir = await bundleCopy(async (d) => {
      const file = path.join(d, 'adj_factor.csv')
      const lines = (await readFile(file, 'utf8')).split('\n')
      await writeFile(file, lines.filter((l) => !l.startsWith('300750.SZ,20240105')).join('\n'))
      const daily = path.join(d, 'daily.csv')
      await writeFile(daily, (await readFile(daily, 'utf8')).replace(/^(600519\.SH,20240102,)1678\.98/m, '$11679.5'))
    })
    const before = await rows(t, TABLE_COUNTS)
    const err = await failure(runImport(t, dir))
    const line = (await readFile(path.join(dir, 'daily.csv'), 'utf8'))
      .split('\n')
      .findIndex((l) => l.startsWith('300750.SZ,20240105'))
    expect(err.message).toBe(
      `daily.csv:${line + 1}: bar of 300750.SZ on 2024-01-05 has no adjustment factor (adj_factor.csv has no row for it); add tushare adj_factor for the same days`,
    )
    expect(await rows(t, TABLE_COUNTS)).toEqual(before)
    expect(await rows(t, `select open from daily_bars where code = '600519.SH' and trade_date = '2024-01-02'`)).toEqual(
      [{ open: 1678.98 }],
    )
  })

  it('refuses daily.csv without adj_factor.csv', async () => {
    const dir = await bundleCopy((d) => rm(path.join(d, 'adj_factor.csv')))
    expect((await failure(runImport(t, dir))).message).toMatch(
      /^daily\.csv:2: bar of 600519\.SH on 2024-01-02 has no adjustment factor \(the bundle has no adj_factor\.csv\)/,
    )
  })

  it('a later bundle with a corrected bar and a new day writes just those two, keeping the stored turnover', async () => {
    const dir = await bundleCopy(async (d) => {
      for (const file of ['stock_basic', 'index_daily', 'trade_cal', 'daily_basic', 'fina_indicator', 'namechange']) {
        await rm(path.join(d, `${file}.csv`))
      }
      for (const file of ['suspend_d', 'stk_limit']) await rm(path.join(d, `${file}.csv`))
      const daily = path.join(d, 'daily.csv')
      const text = (await readFile(daily, 'utf8')).replace(
        /^(600519\.SH,20240103,1689\.01,1690\.42,1662\.91,)1676\.5/m,
        '$11677.5',
      )
      await writeFile(
        daily,
        `${text.trimEnd()}\n600519.SH,20240506,1700,1710,1690,1705,1685.71,19.29,1.14,50000,8500000\n`,
      )
      const adj = path.join(d, 'adj_factor.csv')
      await writeFile(adj, `${(await readFile(adj, 'utf8')).trimEnd()}\n600519.SH,20240506,8.4153\n`)
    })
    const bar = `select close, turnover_rate from daily_bars where code = '600519.SH' and trade_date = '2024-01-03'`
    const [before] = await rows(t, bar)
    const result = await runImport(t, dir)
    expect(result.files.find((f) => f.file === 'daily.csv')).toMatchObject({ rows: 862, inserted: 1, updated: 1 })
    expect(result.files.find((f) => f.file === 'adj_factor.csv')).toMatchObject({ attached: 2, unchanged: 863 })
    expect(await rows(t, bar)).toEqual([{ close: 1677.5, turnover_rate: before!.turnover_rate }])
    expect(before!.turnover_rate).not.toBeNull()
    expect(
      await rows(
        t,
        `select close, volume, adj_factor from daily_bars where code = '600519.SH' and trade_date = '2024-05-06'`,
      ),
    ).toEqual([{ close: 1705, volume: 5_000_000, adj_factor: 8.4153 }])
  })

  it('names the line of invalid UTF-8 and suggests --encoding gbk, which imports the GBK file', async () => {
    const dir = path.join(DATA, 'gbk')
    const err = await failure(runImport(t, dir))
    expect(err.message).toBe(
      'stock_basic.csv:2: not valid UTF-8; if the file is GBK (a CSV saved by Excel on Chinese Windows), import with --encoding gbk',
    )
    await t.db.updateTable('securities').set({ name: 'x' }).where('code', '=', '600519.SH').execute()
    const result = await runImport(t, dir, { encoding: 'gbk' })
    expect(result.files).toEqual([expect.objectContaining({ file: 'stock_basic.csv', rows: 3, updated: 1 })])
    expect(await rows(t, `select name, industry from securities where code = '600519.SH'`)).toEqual([
      { name: '贵州茅台', industry: '白酒' },
    ])
  })
})

describe('a tushare bundle without ST history', () => {
  let t: TestDatabase
  beforeAll(async () => {
    t = await createTestDatabase()
  })
  afterAll(() => t.drop())

  it('warns how many names carry ST or 退 and flags them ST from the last bar date on, not before', async () => {
    const dir = await bundleCopy(async (d) => {
      await rm(path.join(d, 'namechange.csv'))
      const basic = path.join(d, 'stock_basic.csv')
      await writeFile(
        basic,
        (await readFile(basic, 'utf8')).replace('000001.SZ,000001,平安银行', '000001.SZ,000001,*ST平安'),
      )
    })
    const warning =
      'stock_basic.csv: 2 codes carry ST, *ST or 退 in their names, and the bundle has no namechange.csv or ' +
      "stock_st.csv: they are flagged ST from 2024-04-30 (the store's last bar date) on, earlier days unflagged; " +
      'add namechange.csv for their ST history'
    const result = await runImport(t, dir)
    expect(result.warnings).toEqual([warning])
    expect(await rows(t, `select code, start_date, end_date from st_periods order by code`)).toEqual([
      { code: '000001.SZ', start_date: '2024-04-30', end_date: null },
      { code: '600087.SH', start_date: '2024-04-30', end_date: null },
    ])
    expect(
      await rows(
        t,
        `select trade_date, is_st from daily_bars where code = '000001.SZ' and trade_date >= '2024-04-29' order by 1`,
      ),
    ).toEqual([
      { trade_date: '2024-04-29', is_st: false },
      { trade_date: '2024-04-30', is_st: true },
    ])
    const again = await runImport(t, dir)
    expect(again.warnings).toEqual([warning])
    expect(again.files.filter((f) => f.inserted + f.updated > 0)).toEqual([])
    expect(await rows(t, 'select count(*)::int as n from st_periods')).toEqual([{ n: 2 }])
  })
})

describe('a build on the tushare bundle', () => {
  let t: TestDatabase
  let services: Services
  let planDir: string
  beforeAll(async () => {
    t = await createTestDatabase()
    await runImport(t, BUNDLE)
    planDir = await mkdtemp(path.join(os.tmpdir(), 'stockplan-tushare-plan-'))
    const config = testConfig({ PLAN_DATA_DIR: planDir })
    services = createServices(config, createLogger(config), t)
  })
  afterAll(async () => {
    await services?.close()
    await t.drop()
    await rm(planDir, { recursive: true, force: true })
  })

  it('reads forward-adjusted closes: the ex-rights day moves as much as the stock did, not by the bonus', async () => {
    const raw = await rows(
      t,
      `select trade_date, close, pre_close from daily_bars where code = '600519.SH'
       and trade_date in ('2024-03-19', '2024-03-20') order by trade_date`,
    )
    expect(Number(raw[1]!.close) / Number(raw[0]!.close) - 1).toBeLessThan(-0.05)
    const bars = (await services.market.bars('2024-01-02', '2024-04-30', ['600519.SH'])).get('600519.SH')!
    const ex = bars.dates.indexOf('2024-03-20')
    const move = bars.close[ex]! / bars.close[ex - 1]! - 1
    expect(move).toBeCloseTo(Number(raw[1]!.close) / Number(raw[1]!.pre_close) - 1, 3)
    expect(bars.close.at(-1)).toBe(
      (await rows(t, `select close from daily_bars where code = '600519.SH' and trade_date = '2024-04-30'`))[0]!.close,
    )
    // the moving averages see no step either: every day-over-day move stays within the day's real range
    for (let i = 1; i < bars.close.length; i++) {
      expect(Math.abs(bars.close[i]! / bars.close[i - 1]! - 1), bars.dates[i]).toBeLessThan(0.04)
    }
  })

  it('sees a financial as announced by T: a restatement announced after T stays unseen', async () => {
    const q1 = async (date: string) =>
      (await services.market.financials(date, ['600519.SH'])).get('600519.SH')!.map((f) => [f.end_date, f.roe])
    expect(await q1('2024-04-24')).toEqual([['2023-12-31', expect.closeTo(0.3419, 6)]])
    expect((await q1('2024-04-30'))[0]).toEqual(['2024-03-31', expect.closeTo(0.3568, 6)])
    expect((await q1('2024-05-20'))[0]).toEqual(['2024-03-31', expect.closeTo(0.352, 6)])
  })

  it('builds T with suspended codes in the tier table and only listed codes counted as missing', async () => {
    const result = await services.steps.build({ date: '2024-01-17' }, signal)
    expect(result.counts).toMatchObject({ missing_bars: 0, scored: 11 })
    expect(result.stale).toBe('no theme events imported')
    const row = await t.db
      .selectFrom('tier_scores')
      .select(['is_suspended', 'close'])
      .where('trade_date', '=', '2024-01-17')
      .where('code', '=', '000540.SZ')
      .executeTakeFirstOrThrow()
    expect(row.is_suspended).toBe(true)
    await t.db.deleteFrom('daily_bars').where('code', '=', '601318.SH').where('trade_date', '=', '2024-01-17').execute()
    const again = await services.steps.build({ date: '2024-01-17' }, signal)
    expect(again.stale).toBe('1 listed stocks have no bar on 2024-01-17; no theme events imported')
  })

  it('keeps a suspended code logic state through its suspension', async () => {
    for (const date of ['2024-01-12', '2024-01-15', '2024-01-16', '2024-01-17', '2024-01-18'])
      await services.chain({ date }, signal)
    const states = await t.db
      .selectFrom('stock_daily')
      .select(['trade_date', 'logic_state', 'state_since', 'verdict'])
      .where('code', '=', '000540.SZ')
      .orderBy('trade_date')
      .execute()
    const before = states.find((s) => s.trade_date === '2024-01-15')!
    for (const s of states.filter((x) => x.trade_date >= '2024-01-16')) {
      expect([s.trade_date, s.logic_state, s.state_since]).toEqual([
        s.trade_date,
        before.logic_state,
        before.state_since,
      ])
    }
  })

  it('applies theme edges only inside their validity and holdings from their as_of date', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'stockplan-dated-'))
    try {
      await writeFile(
        path.join(dir, 'theme_edges.csv'),
        'theme,segment,code,weight,valid_from,valid_to\n' +
          '白酒消费,高端白酒,600519.SH,0.9,,\n' +
          '低空经济,整机,302132.SZ,0.8,2024-03-01,\n' +
          '低空经济,整机,689009.SH,0.5,2024-01-01,2024-02-29\n',
      )
      await writeFile(
        path.join(dir, 'holdings.csv'),
        'code,qty,cost_price,updated_at,as_of\n600519.SH,100,1650,2024-01-02,2024-01-02\n' +
          '600519.SH,0,,2024-03-01,2024-03-01\n000001.SZ,500,9.1,2024-01-02,\n',
      )
      await importDirectory(
        { imports: createImportStore(t.pool), log, progress: silentProgress },
        { dir, format: 'native' },
        signal,
      )
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
    const edgeCodes = async (date: string) =>
      (await services.market.edges(undefined, date))
        .filter((e) => e.segment !== CONCEPT_SEGMENT)
        .map((e) => e.code)
        .sort()
    expect(await edgeCodes('2024-02-01')).toEqual(['600519.SH', '689009.SH'])
    expect(await edgeCodes('2024-02-29')).toEqual(['600519.SH', '689009.SH'])
    expect(await edgeCodes('2024-03-01')).toEqual(['302132.SZ', '600519.SH'])
    expect([...(await services.inputs.heldCodes('2023-12-29'))]).toEqual(['000001.SZ'])
    expect([...(await services.inputs.heldCodes('2024-02-01'))].sort()).toEqual(['000001.SZ', '600519.SH'])
    expect([...(await services.inputs.heldCodes('2024-03-01'))]).toEqual(['000001.SZ'])
  })

  // 算力租赁 (ths_member.csv): 300750.SZ a member through 2024-02-29, 601318.SH from 2024-03-01, 688981.SH throughout
  const boardMembers = async (date: string) => {
    await services.steps.build({ date }, signal)
    const scored = await t.db
      .selectFrom('tier_scores')
      .select(['code', 'theme', 'heat', 'graph_evidence'])
      .where('trade_date', '=', date)
      .execute()
    const members = scored.filter((r) => (r.graph_evidence as { theme: string }[]).some((e) => e.theme === '算力租赁'))
    return { codes: members.map((r) => r.code).sort(), heat: scored.find((r) => r.code === '688981.SH')!.heat }
  }

  it('builds with a concept board member only on the days of its membership', async () => {
    expect((await boardMembers('2024-02-01')).codes).toEqual(['300750.SZ', '688981.SH'])
    expect((await boardMembers('2024-02-29')).codes).toEqual(['300750.SZ', '688981.SH'])
    expect((await boardMembers('2024-03-01')).codes).toEqual(['601318.SH', '688981.SH'])
    // the member tushare marks gone without an out_date is in no build; the one without an in_date (数字货币) is
    // valid from the day the list was taken (the bundle's last bar date), not before (issue 39)
    const last = (await services.market.latestBarDate())!
    expect((await services.market.edges(['000001.SZ'], '2024-03-01')).map((e) => e.theme)).toEqual([])
    const edges = await services.market.edges(['000001.SZ'], last)
    expect(edges.map((e) => [e.theme, e.segment, e.evidence])).toEqual([
      ['数字货币', CONCEPT_SEGMENT, CONCEPT_EVIDENCE],
    ])
  })

  it("takes a theme's heat from its board's own market on a day without curated events", async () => {
    const before = (await boardMembers('2024-03-01')).heat!
    const changed = await t.db
      .updateTable('concept_bars')
      .set((eb) => ({ close: eb('close', '*', 1.15) }))
      .where('code', '=', '886001.TI')
      .where('trade_date', '=', '2024-03-01')
      .executeTakeFirst()
    expect(changed.numUpdatedRows).toBe(1n)
    // the same members on the same day; the board up 15 % more over its five days fills its return part
    expect((await boardMembers('2024-03-01')).heat!).toBeGreaterThan(before + 10)
    await t.db
      .deleteFrom('concept_bars')
      .where('code', '=', '886001.TI')
      .where('trade_date', '=', '2024-03-01')
      .execute()
    // no board bar on T: the members' breadth alone, as for a theme that is no board (30 % of the heat at most)
    const breadthOnly = (await boardMembers('2024-03-01')).heat!
    expect(breadthOnly).toBeLessThanOrEqual(30)
    expect(breadthOnly).toBeLessThan(before)
  })

  it('refuses a date that is not a trading day, naming the nearest ones', async () => {
    await expect(services.steps.build({ date: '2024-01-13' }, signal)).rejects.toThrow(
      '2024-01-13 is a Saturday, not a trading day: the nearest trading days are 2024-01-12 (Friday) and 2024-01-15 (Monday); use one of those',
    )
    await expect(services.chain({ date: '2024-02-12' }, signal)).rejects.toThrow(
      'build failed: 2024-02-12 is an exchange holiday, not a trading day: the nearest trading days are 2024-02-08 (Thursday) and 2024-02-19 (Monday); use one of those',
    )
    await expect(services.steps.plan({ date: '2024-01-14' }, signal)).rejects.toThrow(/2024-01-14 is a Sunday/)
  })
})
