/**
 * The plan's rules walked forward over a tushare bundle in memory, in about a minute for the whole market: the same
 * pure functions the build uses (`scoreDay`, `learnWeights`, `signalIcs`), with outcomes computed from the bars
 * (entry at the T+1 open, exit at the T+h close) instead of the store. For trying a rule before a replay through
 * the service; the figures of record come from `stockplan replay` + `stockplan evaluate`.
 *
 *   npx tsx scripts/walk-forward-research.ts --dir BUNDLE --from 2024-05-06 [--to D] [--plan PLAN.json]
 *
 * Simplifications against the service: no limit-up-at-the-open check at entry, themes, reports and valuations
 * absent (a bars-only bundle), the regime never weak, and every stock's listing date the bundle's.
 */
import { createReadStream, writeFileSync } from 'node:fs'
import path from 'node:path'
import readline from 'node:readline'
import { parseArgs } from 'node:util'
import { nextStreaks } from '../src/domain/holding-streak.js'
import { type BarSeries, scoreDay } from '../src/domain/scoring.js'
import { outcomeColumns, signalIcs } from '../src/domain/signal-ic.js'
import { learnWeights, type SignalIcDay, WEIGHT_RULES } from '../src/domain/signal-weights.js'
import { SIGNAL_WINDOWS, type SignalValues } from '../src/domain/signals.js'
import { isEligible } from '../src/domain/tiers.js'
import { longRunVariance, spearman } from '../src/domain/track-stats.js'

const { values } = parseArgs({
  options: { dir: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' }, plan: { type: 'string' } },
})
if (!values.dir || !values.from) throw new Error('usage: --dir BUNDLE --from YYYY-MM-DD [--to YYYY-MM-DD]')
const iso = (d: string) => `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}`

async function* csv(file: string): AsyncGenerator<Record<string, string>> {
  const lines = readline.createInterface({ input: createReadStream(file) })
  let header: string[] | null = null
  for await (const line of lines) {
    const cells = line.split(',')
    if (!header) header = cells
    else yield Object.fromEntries(header.map((h, i) => [h, cells[i] ?? '']))
  }
}

interface Bars {
  dates: string[]
  open: number[]
  high: number[]
  low: number[]
  close: number[]
  preClose: (number | null)[]
  volume: number[]
  amount: number[]
}
const byCode = new Map<string, Bars>()
for await (const r of csv(path.join(values.dir, 'daily.csv'))) {
  let b = byCode.get(r.ts_code!)
  if (!b) {
    b = { dates: [], open: [], high: [], low: [], close: [], preClose: [], volume: [], amount: [] }
    byCode.set(r.ts_code!, b)
  }
  b.dates.push(iso(r.trade_date!))
  b.open.push(Number(r.open))
  b.high.push(Number(r.high))
  b.low.push(Number(r.low))
  b.close.push(Number(r.close))
  b.preClose.push(r.pre_close ? Number(r.pre_close) : null)
  b.volume.push(Number(r.vol) * 100)
  b.amount.push(Number(r.amount) * 1000)
}
const index = new Map<string, number>()
const indexOpen = new Map<string, number>()
for await (const r of csv(path.join(values.dir, 'index_daily.csv'))) {
  index.set(iso(r.trade_date!), Number(r.close))
  indexOpen.set(iso(r.trade_date!), Number(r.open))
}
const securities: Array<{ code: string; name: string; list_date: string | null; board: string }> = []
for await (const r of csv(path.join(values.dir, 'stock_basic.csv'))) {
  const code = r.ts_code!
  const board = code.startsWith('688')
    ? 'star'
    : code.startsWith('30')
      ? 'chinext'
      : code.endsWith('.BJ')
        ? 'bse'
        : 'main'
  securities.push({ code, name: r.name!, list_date: r.list_date ? iso(r.list_date) : null, board })
}
const calendar = [...new Set([...byCode.values()].flatMap((b) => b.dates))].sort()
const indexDates = [...index.keys()].sort()
const indexReturns = new Map<string, number>()
for (let i = 1; i < indexDates.length; i++)
  indexReturns.set(indexDates[i]!, index.get(indexDates[i]!)! / index.get(indexDates[i - 1]!)! - 1)
const position = new Map<string, Map<string, number>>()
for (const [code, b] of byCode) position.set(code, new Map(b.dates.map((d, i) => [d, i])))

function window(code: string, b: Bars, from: string, to: string): BarSeries | null {
  const at = position.get(code)!
  let end = at.get(to)
  if (end === undefined) return null
  let start = end
  while (start > 0 && b.dates[start - 1]! >= from) start--
  end++
  return {
    dates: b.dates.slice(start, end),
    close: b.close.slice(start, end),
    adjFactor: new Array(end - start).fill(1),
    amount: b.amount.slice(start, end),
    volume: b.volume.slice(start, end),
    intraday: b.close.slice(start, end).map((c, i) => c / b.open[start + i]!),
    suspended: new Array(end - start).fill(false),
    preClose: b.preClose[end - 1] ?? null,
    isSt: false,
    open: b.open[end - 1]!,
    high: b.high[end - 1]!,
    low: b.low[end - 1]!,
  }
}

/** Open of T+1 to open of T+2: the first day of a holding bought at T+1's open (the book proxy). */
function openToOpen(code: string, t: number): number | null {
  const b = byCode.get(code)!
  const at = position.get(code)!
  const entry = at.get(calendar[t + 1]!)
  const exit = at.get(calendar[t + 2]!)
  return entry === undefined || exit === undefined ? null : b.open[exit]! / b.open[entry]! - 1
}

function forward(code: string, t: number, h: number): number | null {
  const b = byCode.get(code)!
  const at = position.get(code)!
  const entry = at.get(calendar[t + 1]!)
  const exit = at.get(calendar[t + h]!)
  if (entry === undefined || exit === undefined) return null
  return b.close[exit]! / b.open[entry]! - 1
}

const first = calendar.findIndex((d) => d >= values.from!)
const last = values.to ? calendar.findLastIndex((d) => d <= values.to!) : calendar.length - 1
const H = WEIGHT_RULES.horizon
const history: SignalIcDay[] = []
const pending: Array<{ t: number; signals: Map<string, SignalValues> }> = []
let previousMain: ReadonlyMap<string, number> = new Map()
const report: Array<{
  date: string
  ic: number | null
  mainRet: number | null
  benchRet: number | null
  uniRet: number | null
  turnover: number
}> = []
const started = performance.now()
const quintiles: Array<Array<number | null>> = []
// the book proxy (until simulateBook): each day's main held from T+1's open to T+2's open against T's investable
// universe (eligible: traded, 20-day amount >= 50 M, listed >= 60 days, not ST), costs per unit of one-sided turnover
const COST = Number(process.env.BOOK_COST ?? 0.0033)
const book: Array<{ gross: number; net: number; turnover: number }> = []
/** Each plan day's main in rank order (--plan FILE: a book simulation can replay them without scoring again). */
const plan: Array<{ date: string; main: string[] }> = []
for (let t = first; t <= last - H; t++) {
  const date = calendar[t]!
  while (pending.length > 0 && pending[0]!.t + H <= t) {
    const p = pending.shift()!
    const rows = [...p.signals].flatMap(([code, signals]) => {
      const ret = forward(code, p.t, H)
      return ret === null ? [] : [{ signals, ret }]
    })
    const ic = Object.fromEntries(Object.entries(signalIcs(outcomeColumns(rows))).map(([k, v]) => [k, v.ic]))
    history.push({ date: calendar[p.t]!, exitDate: calendar[p.t + H]!, ic })
  }
  const from = calendar[Math.max(0, t - SIGNAL_WINDOWS.history)]!
  const bars = new Map<string, BarSeries>()
  for (const [code, b] of byCode) {
    const w = window(code, b, from, date)
    if (w) bars.set(code, w)
  }
  const weights = learnWeights(history, date)
  const day = scoreDay({
    date,
    calendar: calendar.slice(0, t + 1),
    securities,
    bars,
    edges: [],
    events: [],
    facts: new Map(),
    indexReturns,
    weights,
    previousMain,
  })
  pending.push({ t, signals: new Map(day.rows.map((r) => [r.code, r.signals])) })
  const main = day.rows.filter((r) => r.tier === 'main').map((r) => r.code)
  const scored = day.rows.flatMap((r) => {
    const ret = forward(r.code, t, H)
    return ret === null ? [] : [{ score: r.score, ret, main: r.tier === 'main' }]
  })
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null)
  plan.push({ date, main })
  const oneDay = (rows: typeof day.rows) =>
    mean(rows.map((r) => openToOpen(r.code, t)).filter((v): v is number => v !== null))
  const universeDay = oneDay(day.rows.filter(isEligible))
  const mainDay = oneDay(day.rows.filter((r) => r.tier === 'main'))
  if (universeDay !== null) {
    const changed = main.filter((c) => !previousMain.has(c)).length / 20
    const gross = (mainDay ?? universeDay) - universeDay
    book.push({ gross, net: gross - changed * COST, turnover: changed })
  }
  const turnover = main.length ? main.filter((c) => !previousMain.has(c)).length / main.length : 0
  const sorted = [...scored].sort((a, b) => a.score - b.score)
  const q = (k: number) =>
    mean(sorted.slice(Math.floor((k * sorted.length) / 5), Math.floor(((k + 1) * sorted.length) / 5)).map((s) => s.ret))
  quintiles.push([0, 1, 2, 3, 4].map(q))
  report.push({
    date,
    ic: spearman(
      scored.map((s) => s.score),
      scored.map((s) => s.ret),
    ),
    mainRet: mean(scored.filter((s) => s.main).map((s) => s.ret)),
    benchRet:
      index.get(calendar[t + H]!) !== undefined && indexOpen.get(calendar[t + 1]!) !== undefined
        ? index.get(calendar[t + H]!)! / indexOpen.get(calendar[t + 1]!)! - 1
        : null,
    uniRet: mean(scored.map((s) => s.ret)),
    turnover,
  })
  previousMain = nextStreaks(previousMain, main)
  if ((t - first) % 25 === 0) {
    const w = Object.entries(weights)
      .filter(([, v]) => v.weight !== 0)
      .map(([k, v]) => `${k} ${v.weight.toFixed(3)}`)
      .join(', ')
    process.stderr.write(`${date} (${((performance.now() - started) / 1000).toFixed(0)} s) main ${main.length}; ${w}\n`)
  }
}
function bookSummary() {
  const stat = (xs: number[]) => {
    const m = xs.reduce((a, b) => a + b, 0) / xs.length
    const sd = Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1))
    return { mean: m, t: m / Math.sqrt(longRunVariance(xs, 5) / xs.length), ir: (m / sd) * Math.sqrt(252) }
  }
  const gross = stat(book.map((d) => d.gross))
  const net = stat(book.map((d) => d.net))
  return {
    days: book.length,
    gross_excess_day: gross.mean,
    gross_t: gross.t,
    net_excess_day: net.mean,
    net_t: net.t,
    net_ir: net.ir,
    turnover_day: book.reduce((a, d) => a + d.turnover, 0) / book.length,
    cost_per_turnover: COST,
  }
}
if (values.plan) writeFileSync(values.plan, JSON.stringify(plan))
const ics = report.map((r) => r.ic).filter((v): v is number => v !== null)
const icMean = ics.reduce((a, b) => a + b, 0) / ics.length
const icSd = Math.sqrt(ics.reduce((a, b) => a + (b - icMean) ** 2, 0) / (ics.length - 1))
const excess = report.filter((r) => r.mainRet !== null).map((r) => r.mainRet! - r.uniRet!)
const exMean = excess.reduce((a, b) => a + b, 0) / excess.length
console.log(
  JSON.stringify(
    {
      days: report.length,
      ic_mean: icMean,
      icir: icMean / icSd,
      naive_t: (icMean / icSd) * Math.sqrt(ics.length / H),
      main_days: report.filter((r) => r.mainRet !== null).length,
      main_excess_vs_universe_per_window: exMean,
      // the track record's way: each day's cohort adds its excess / h (overlapping h-day holdings), before costs
      main_cum_excess_vs_benchmark: report.reduce(
        (a, r) => a + (r.mainRet !== null && r.benchRet !== null ? (r.mainRet - r.benchRet) / H : 0),
        0,
      ),
      universe_cum_excess_vs_benchmark: report.reduce(
        (a, r) => a + (r.uniRet !== null && r.benchRet !== null ? (r.uniRet - r.benchRet) / H : 0),
        0,
      ),
      quintiles: [0, 1, 2, 3, 4].map((k) => quintiles.reduce((a, d) => a + (d[k] ?? 0), 0) / quintiles.length),
      main_turnover: report.reduce((a, r) => a + r.turnover, 0) / report.length,
      main_filled: report.filter((r) => r.mainRet !== null).length / report.length,
      ic_t_nw: icMean / Math.sqrt(longRunVariance(ics, H) / ics.length),
      book: bookSummary(),
      seconds: (performance.now() - started) / 1000,
    },
    null,
    1,
  ),
)
