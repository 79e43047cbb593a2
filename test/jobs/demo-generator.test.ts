import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { parse } from 'csv-parse/sync'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseCode } from '../../src/domain/codes.js'
import { limitRatio } from '../../src/domain/limit-rules.js'
import { addDays, tradingCalendar, weekday } from '../../src/jobs/demo/calendar.js'
import { csvField, csvLine } from '../../src/jobs/demo/csv-writer.js'
import { DEMO_FILES, HEADERS } from '../../src/jobs/demo/files.js'
import { type DemoSummary, generateDemoMarket } from '../../src/jobs/demo/generate.js'
import { limitPercent } from '../../src/jobs/demo/prices.js'
import { Random } from '../../src/jobs/demo/random.js'
import { type Progress, silentProgress } from '../../src/jobs/progress.js'

type Row = Record<string, string>

const OPTIONS = { stocks: 60, days: 40, seed: 7 }
const END = '2026-11-20'

let root: string
let first: DemoSummary
let second: DemoSummary
let other: DemoSummary
const ticks = { started: [] as Array<[string, number]>, ticks: 0, done: 0 }
const data = new Map<string, Row[]>()

const recordingProgress: Progress = {
  start: (label, total) => ticks.started.push([label, total]),
  tick: (count = 1) => {
    ticks.ticks += count
  },
  done: () => {
    ticks.done++
  },
}

async function text(dir: string, file: string): Promise<string> {
  return readFile(path.join(dir, file), 'utf8')
}

function rows(file: string): Row[] {
  const found = data.get(file)
  if (!found) throw new Error(`${file} not loaded`)
  return found
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>()
  for (const item of items) {
    const k = key(item)
    const list = out.get(k)
    if (list) list.push(item)
    else out.set(k, [item])
  }
  return out
}

/** Limit price as the exchanges set it: pre_close x (1 +- r) rounded to the fen. */
function limit(pre: number, ratio: number, sign: 1 | -1): number {
  return Math.round(pre * (1 + sign * ratio) * 100) / 100
}

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'stockplan-demo-'))
  first = await generateDemoMarket(path.join(root, 'a'), OPTIONS, recordingProgress)
  second = await generateDemoMarket(path.join(root, 'b'), OPTIONS, silentProgress)
  other = await generateDemoMarket(path.join(root, 'c'), { ...OPTIONS, seed: 8 }, silentProgress)
  for (const file of DEMO_FILES) {
    data.set(file, parse(await text(first.dir, file), { columns: true, skip_empty_lines: false }) as Row[])
  }
})

afterAll(async () => {
  await rm(root, { recursive: true, force: true })
})

describe('determinism', () => {
  it('writes the same bytes for the same options', async () => {
    for (const file of DEMO_FILES) {
      const a = await readFile(path.join(first.dir, file))
      const b = await readFile(path.join(second.dir, file))
      expect(a.equals(b), file).toBe(true)
    }
    expect({ ...second, dir: first.dir }).toEqual(first)
  })

  it('writes different markets for different seeds', async () => {
    for (const file of ['securities.csv', 'bars.csv', 'basics.csv', 'theme_edges.csv', 'theme_events.csv']) {
      expect(await text(other.dir, file), file).not.toBe(await text(first.dir, file))
    }
  })

  it('leaves only the nine files behind (temp files are renamed into place)', async () => {
    expect((await readdir(first.dir)).sort()).toEqual([...DEMO_FILES].sort())
  })

  it('reports progress per day of the closes, then per stock of the bars', () => {
    expect(ticks.started).toEqual([
      ['demo market: closes', OPTIONS.days],
      ['demo market: bars', OPTIONS.stocks],
    ])
    expect(ticks.ticks).toBe(OPTIONS.days + OPTIONS.stocks)
    expect(ticks.done).toBe(2)
  })

  it('draws the same numbers from the same stream and different ones from another', () => {
    const draw = (r: Random) => Array.from({ length: 5 }, () => r.next())
    expect(draw(new Random(1, 'x', 2))).toEqual(draw(new Random(1, 'x', 2)))
    expect(draw(new Random(1, 'x', 2))).not.toEqual(draw(new Random(1, 'x', 3)))
    expect(draw(new Random(1, 'x'))).not.toEqual(draw(new Random(2, 'x')))
  })
})

describe('files and counts', () => {
  it('has exactly the native header rows', async () => {
    for (const file of DEMO_FILES) {
      const header = (await text(first.dir, file)).split('\n', 1)[0]
      expect(header, file).toBe(HEADERS[file].join(','))
    }
    expect(HEADERS['bars.csv'].join(',')).toBe(
      'code,trade_date,open,high,low,close,pre_close,volume,amount,turnover_rate,adj_factor,is_suspended,is_st',
    )
    expect(HEADERS['theme_edges.csv'].join(',')).toBe('theme,segment,code,weight,evidence,track')
  })

  it('reports the row count of every file', () => {
    for (const file of DEMO_FILES) expect(first.files[file], file).toBe(rows(file).length)
    expect(rows('securities.csv')).toHaveLength(OPTIONS.stocks)
    expect(rows('index_bars.csv')).toHaveLength(OPTIONS.days)
    expect(rows('financials.csv')).toHaveLength(OPTIONS.stocks * 8)
    expect(rows('holdings.csv')).toHaveLength(8)
    expect(rows('basics.csv')).toHaveLength(rows('bars.csv').length)
  })

  it('covers `days` trading days ending at the end date', () => {
    const dates = [...new Set(rows('bars.csv').map((r) => r.trade_date!))].sort()
    expect(dates).toEqual(tradingCalendar(END, OPTIONS.days))
    expect(first.firstDate).toBe(dates[0])
    expect(first.lastDate).toBe(END)
    expect(rows('index_bars.csv').map((r) => r.trade_date)).toEqual(dates)
    for (const d of dates) expect([0, 6]).not.toContain(weekday(d))
  })

  it('gives every old stock a full history and new listings bars from their listing day', () => {
    const byCode = groupBy(rows('bars.csv'), (r) => r.code!)
    const calendar = tradingCalendar(END, OPTIONS.days)
    let fresh = 0
    for (const s of rows('securities.csv')) {
      const dates = (byCode.get(s.code!) ?? []).map((r) => r.trade_date!)
      expect(dates.length, s.code).toBeGreaterThan(0)
      expect(s.delist_date).toBe('')
      if (s.list_date! >= calendar[0]!) {
        fresh++
        expect(dates[0]).toBe(s.list_date)
        expect(dates).toEqual(calendar.slice(calendar.indexOf(s.list_date!)))
      } else {
        expect(dates).toEqual(calendar)
      }
    }
    expect(fresh).toBeGreaterThanOrEqual(1)
  })

  it('sorts bars and basics by code, then date, with the same keys', () => {
    const keys = (file: string) => rows(file).map((r) => `${r.code} ${r.trade_date}`)
    const bars = keys('bars.csv')
    expect(bars).toEqual([...bars].sort())
    expect(keys('basics.csv')).toEqual(bars)
  })

  it('skips the exchange holidays', () => {
    expect(tradingCalendar('2026-10-09', 5)).toEqual([
      '2026-09-28',
      '2026-09-29',
      '2026-09-30',
      '2026-10-08',
      '2026-10-09',
    ])
    expect(tradingCalendar('2026-11-22', 1)).toEqual(['2026-11-20'])
  })
})

describe('securities', () => {
  it('uses canonical codes that parse to themselves, with their exchange and board', () => {
    for (const s of rows('securities.csv')) {
      const parsed = parseCode(s.code!)
      expect(parsed.ok && parsed.code, s.code).toBe(s.code)
      if (!parsed.ok) continue
      expect(s.exchange).toBe(parsed.exchange)
      expect(s.board).toBe(parsed.board)
      expect(s.name!.length).toBeGreaterThan(1)
      expect(s.industry).not.toBe('')
    }
    expect(new Set(rows('securities.csv').map((s) => s.name)).size).toBe(OPTIONS.stocks)
  })

  it('mixes the boards roughly 40/25/20/10/5', () => {
    const count = (pred: (code: string) => boolean) => rows('securities.csv').filter((s) => pred(s.code!)).length
    expect(count((c) => c.endsWith('.SH') && c.startsWith('6') && !c.startsWith('688'))).toBe(24)
    expect(count((c) => c.endsWith('.SZ') && c.startsWith('0'))).toBe(15)
    expect(count((c) => c.startsWith('30'))).toBe(12)
    expect(count((c) => c.startsWith('688'))).toBe(6)
    expect(count((c) => c.startsWith('920'))).toBe(3)
  })
})

describe('bars', () => {
  const st = () =>
    new Set(
      rows('securities.csv')
        .filter((s) => s.name!.includes('ST'))
        .map((s) => s.code),
    )
  const boards = () => new Map(rows('securities.csv').map((s) => [s.code!, parseCode(s.code!)]))

  it('keeps every close within the daily limit and every OHLC in order', () => {
    const parsed = boards()
    let limitUps = 0
    let limitDowns = 0
    for (const b of rows('bars.csv')) {
      const p = parsed.get(b.code!)
      if (!p?.ok) throw new Error(`bad code ${b.code}`)
      const [open, high, low, close, pre] = [b.open, b.high, b.low, b.close, b.pre_close].map(Number) as [
        number,
        number,
        number,
        number,
        number,
      ]
      const r = limitRatio(p.board, b.is_st === 'true', b.trade_date!, Number.POSITIVE_INFINITY)!
      const up = limit(pre, r, 1)
      const down = limit(pre, r, -1)
      const where = `${b.code} ${b.trade_date}`
      expect(close, where).toBeLessThanOrEqual(up + 1e-9)
      expect(close, where).toBeGreaterThanOrEqual(down - 1e-9)
      expect(high, where).toBeGreaterThanOrEqual(Math.max(open, close))
      expect(low, where).toBeLessThanOrEqual(Math.min(open, close))
      expect(high, where).toBeLessThanOrEqual(up + 1e-9)
      expect(low, where).toBeGreaterThanOrEqual(down - 1e-9)
      expect(low, where).toBeGreaterThan(0)
      for (const v of [b.open, b.high, b.low, b.close, b.pre_close]) expect(v).toMatch(/^\d+\.\d{2}$/)
      expect(b.volume).toMatch(/^\d+$/)
      expect(b.amount).toMatch(/^\d+$/)
      if (close === up) limitUps++
      if (close === down) limitDowns++
      // No pre_close sits on a half-fen tie of the limit the demo simulates (the narrowest of the dated rules),
      // so every rounding convention agrees on the limits.
      const simulated = limitPercent(p.board, b.is_st === 'true')
      for (const sign of [1, -1]) {
        const fenTimes = Math.round(pre * 100) * (100 + sign * simulated)
        expect(fenTimes % 100, where).not.toBe(50)
      }
    }
    expect(limitUps).toBeGreaterThan(0)
    expect(limitDowns).toBeGreaterThan(0)
  })

  it('has suspended stretches that reach the last date', () => {
    const suspended = rows('bars.csv').filter((b) => b.is_suspended === 'true')
    expect(suspended.length).toBeGreaterThan(0)
    for (const b of suspended) {
      expect([b.open, b.high, b.low, b.close]).toEqual([b.pre_close, b.pre_close, b.pre_close, b.pre_close])
      expect([b.volume, b.amount, Number(b.turnover_rate)]).toEqual(['0', '0', 0])
    }
    for (const code of new Set(suspended.map((b) => b.code))) {
      const own = rows('bars.csv').filter((b) => b.code === code)
      const from = own.findIndex((b) => b.is_suspended === 'true')
      expect(own.slice(from).every((b) => b.is_suspended === 'true')).toBe(true)
      expect(own.at(-1)!.trade_date).toBe(END)
    }
    for (const b of rows('bars.csv')) if (b.is_suspended === 'false') expect(Number(b.volume)).toBeGreaterThan(0)
  })

  it('marks ST stocks on every day, with ST names', () => {
    const codes = st()
    expect(codes.size).toBeGreaterThanOrEqual(1)
    for (const b of rows('bars.csv')) expect(b.is_st, b.code).toBe(codes.has(b.code!) ? 'true' : 'false')
  })

  it('steps the adjust factor only on ex-dividend days', () => {
    for (const [, own] of groupBy(rows('bars.csv'), (b) => b.code!)) {
      const factors = own.map((b) => Number(b.adj_factor))
      expect(factors[0]).toBe(1)
      for (let i = 1; i < own.length; i++) {
        if (factors[i] !== factors[i - 1]) {
          expect(factors[i]!).toBeGreaterThan(factors[i - 1]!)
          expect(Number(own[i]!.pre_close)).toBeLessThan(Number(own[i - 1]!.close))
        } else {
          expect(own[i]!.pre_close).toBe(own[i - 1]!.close)
        }
      }
    }
  })

  it('leaves about a fifth of the stocks below 50 million yuan of 20-day mean amount', () => {
    const means = [...groupBy(rows('bars.csv'), (b) => b.code!).values()].map(
      (own) => own.slice(-20).reduce((sum, b) => sum + Number(b.amount), 0) / Math.min(20, own.length),
    )
    const thin = means.filter((m) => m < 50e6).length / means.length
    expect(thin).toBeGreaterThan(0.08)
    expect(thin).toBeLessThan(0.35)
  })

  it('builds the CSI 300 from the market, starting near 3900', () => {
    const index = rows('index_bars.csv')
    expect(index.every((r) => r.code === '000300.SH')).toBe(true)
    expect(Number(index[0]!.pre_close)).toBeGreaterThan(3850)
    expect(Number(index[0]!.pre_close)).toBeLessThan(3950)
    for (let i = 1; i < index.length; i++) expect(index[i]!.pre_close).toBe(index[i - 1]!.close)
    for (const r of index) {
      expect(Number(r.high)).toBeGreaterThanOrEqual(Math.max(Number(r.open), Number(r.close)))
      expect(Number(r.low)).toBeLessThanOrEqual(Math.min(Number(r.open), Number(r.close)))
      expect(r.turnover_rate).toBe('')
    }
  })
})

describe('fundamentals', () => {
  it('leaves pe_ttm empty exactly for loss-makers and matches close / TTM EPS otherwise', () => {
    const reports = groupBy(rows('financials.csv'), (f) => f.code!)
    const closes = new Map(rows('bars.csv').map((b) => [`${b.code} ${b.trade_date}`, Number(b.close)]))
    let empty = 0
    for (const row of rows('basics.csv')) {
      const inEffect = reports.get(row.code!)!.filter((f) => f.ann_date! <= row.trade_date!)
      const eps = Number((inEffect.at(-1) ?? reports.get(row.code!)![0]!).eps)
      if (eps < 0) {
        expect(row.pe_ttm).toBe('')
        empty++
      } else {
        const close = closes.get(`${row.code} ${row.trade_date}`)!
        expect(Number(row.pe_ttm)).toBeCloseTo(close / eps, 1)
      }
      expect(Number(row.pb)).toBeGreaterThan(0)
      expect(Number(row.total_mv)).toBeGreaterThanOrEqual(Number(row.circ_mv))
    }
    expect(empty).toBeGreaterThan(0)
  })

  it('reports 8 quarters announced 20 to 60 days after the quarter end and not after the end date', () => {
    const ends = [
      '2024-12-31',
      '2025-03-31',
      '2025-06-30',
      '2025-09-30',
      '2025-12-31',
      '2026-03-31',
      '2026-06-30',
      '2026-09-30',
    ]
    for (const [code, own] of groupBy(rows('financials.csv'), (f) => f.code!)) {
      expect(
        own.map((f) => f.end_date),
        code,
      ).toEqual(ends)
      for (const f of own) {
        expect(f.ann_date! >= addDays(f.end_date!, 20)).toBe(true)
        expect(f.ann_date! <= addDays(f.end_date!, 60)).toBe(true)
        expect(f.ann_date! <= END).toBe(true)
        expect(Math.abs(Number(f.roe))).toBeLessThan(1)
      }
    }
  })

  it('forecasts two fiscal years with low <= mean <= high', () => {
    const forecasts = rows('forecasts.csv')
    expect(forecasts.length).toBeGreaterThan(0)
    for (const f of forecasts) {
      expect(['2026', '2027']).toContain(f.fiscal_year)
      expect(Number(f.eps_low)).toBeLessThanOrEqual(Number(f.eps_mean))
      expect(Number(f.eps_mean)).toBeLessThanOrEqual(Number(f.eps_high))
      expect(f.as_of! <= END).toBe(true)
    }
  })
})

describe('themes, events and holdings', () => {
  it('links themes to segments to stocks with weights in [0, 1] and a track', () => {
    const edges = rows('theme_edges.csv')
    const codes = new Set(rows('securities.csv').map((s) => s.code))
    const tracks = new Set(['tech', 'consumer', 'energy', 'healthcare', 'industrial', 'materials', 'finance'])
    for (const e of edges) {
      expect(codes.has(e.code)).toBe(true)
      expect(e.weight).toMatch(/^[01]\.\d{2}$/)
      expect(Number(e.weight)).toBeLessThanOrEqual(1)
      expect(tracks.has(e.track!)).toBe(true)
      expect(e.evidence!.length).toBeGreaterThan(4)
    }
    expect(new Set(edges.map((e) => `${e.theme}|${e.segment}|${e.code}`)).size).toBe(edges.length)
    expect(new Set(edges.map((e) => e.theme)).size).toBe(30)
  })

  it('puts about half the stocks in no theme', () => {
    const themed = new Set(rows('theme_edges.csv').map((e) => e.code)).size / OPTIONS.stocks
    expect(themed).toBeGreaterThan(0.35)
    expect(themed).toBeLessThanOrEqual(0.5)
  })

  it('heats up the hot themes over the last days and leaves a stale theme quiet for 20+ days', () => {
    const events = rows('theme_events.csv')
    const calendar = tradingCalendar(END, OPTIONS.days)
    expect(first.hotThemes.length).toBeGreaterThanOrEqual(4)
    expect(first.hotThemes.length).toBeLessThanOrEqual(6)
    for (const theme of first.hotThemes) {
      const lastDays = events.filter((e) => e.theme === theme && e.trade_date! >= calendar.at(-5)!)
      expect(lastDays.length, theme).toBeGreaterThanOrEqual(5)
      expect(Math.max(...lastDays.map((e) => Number(e.intensity)))).toBeGreaterThanOrEqual(80)
    }
    const lastEvent = new Map<string, string>()
    for (const e of events) lastEvent.set(e.theme!, e.trade_date!)
    const stale = [...lastEvent].filter(([, d]) => calendar.indexOf(d) < calendar.length - 21)
    expect(stale.length).toBeGreaterThanOrEqual(2)
    for (const e of events) expect(Number(e.intensity)).toBeGreaterThanOrEqual(0)
    for (const e of events) expect(Number(e.intensity)).toBeLessThanOrEqual(100)
    expect(new Set(events.map((e) => `${e.trade_date}|${e.theme}|${e.title}`)).size).toBe(events.length)
  })

  it('holds eight codes, at least two of them hot-theme members, updated at the end date', () => {
    const hot = new Set(first.hotThemes)
    const hotCodes = new Set(
      rows('theme_edges.csv')
        .filter((e) => hot.has(e.theme!))
        .map((e) => e.code),
    )
    const holdings = rows('holdings.csv')
    expect(new Set(holdings.map((h) => h.code)).size).toBe(8)
    expect(holdings.filter((h) => hotCodes.has(h.code)).length).toBeGreaterThanOrEqual(2)
    for (const h of holdings) {
      expect(h.updated_at).toBe(END)
      expect(Number(h.qty) % 100).toBe(0)
      expect(Number(h.cost_price)).toBeGreaterThan(0)
    }
  })
})

describe('CSV format', () => {
  it('quotes fields holding commas or quotes and doubles inner quotes', async () => {
    expect(csvField('a,b')).toBe('"a,b"')
    expect(csvField('say "hi"')).toBe('"say ""hi"""')
    expect(csvField('two\nlines')).toBe('"two\nlines"')
    expect(csvField('plain')).toBe('plain')
    expect(csvField(null)).toBe('')
    expect(csvField(true)).toBe('true')
    expect(csvLine(['x', 1.5, null, false, '1,2'])).toBe('x,1.5,,false,"1,2"')

    const raw = await text(first.dir, 'theme_events.csv')
    const withComma = rows('theme_events.csv').filter((e) => e.title!.includes(','))
    expect(withComma.length).toBeGreaterThan(0)
    for (const e of withComma) expect(raw).toContain(csvField(e.title!))
    const withQuote = rows('theme_events.csv').filter((e) => e.title!.includes('"'))
    expect(withQuote.length).toBeGreaterThan(0)
    for (const e of withQuote) expect(raw).toContain(`"${e.title!.replaceAll('"', '""')}"`)
  })

  it('writes UTF-8 with LF line ends and no trailing blank row', async () => {
    const raw = await text(first.dir, 'securities.csv')
    expect(raw).not.toContain('\r')
    expect(raw.endsWith('\n')).toBe(true)
    expect(raw.endsWith('\n\n')).toBe(false)
    expect(/[\u4e00-\u9fff]/.test(raw)).toBe(true)
  })
})

describe('options', () => {
  it('rejects sizes out of range and bad dates', async () => {
    const dir = path.join(root, 'bad')
    await expect(generateDemoMarket(dir, { ...OPTIONS, stocks: 5 }, silentProgress)).rejects.toThrow(/stocks/)
    await expect(generateDemoMarket(dir, { ...OPTIONS, days: 1.5 }, silentProgress)).rejects.toThrow(/days/)
    await expect(generateDemoMarket(dir, { ...OPTIONS, endDate: '2026-02-30' }, silentProgress)).rejects.toThrow(
      /real date/,
    )
  })

  it('ends the calendar at the last trading day on or before a weekend end date', async () => {
    const summary = await generateDemoMarket(
      path.join(root, 'weekend'),
      { stocks: 12, days: 5, seed: 1, endDate: '2026-11-22' },
      silentProgress,
    )
    expect(summary.lastDate).toBe('2026-11-20')
    expect(summary.files['bars.csv']).toBeGreaterThan(0)
  })
})
