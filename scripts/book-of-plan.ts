/**
 * The main book of a plan file (`scripts/walk-forward-research.ts --plan FILE`) simulated with the service's own
 * `simulateBook` over a tushare bundle's bars, summarised against the equal-weighted investable universe and CSI 300,
 * at 20, 100 and 300 M CNY:
 *
 *   npx tsx scripts/book-of-plan.ts --dir BUNDLE --plan PLAN.json [--plan OTHER.json ...]
 *
 * The universe of D is the investable names of the day before (traded, mean amount of the 20 traded days up to it
 * >= 50 M CNY, >= 60 bars); its return is the equal-weighted close-to-close return of those that trade on D. The
 * bundle's prices are forward-adjusted (adj 1); limit prices come from the previous adjusted close (`limitPrices`),
 * no stock counts as ST (the set has no ST history). Figures of record: `stockplan replay` + `stockplan evaluate`.
 */
import { createReadStream, readFileSync } from 'node:fs'
import path from 'node:path'
import readline from 'node:readline'
import { parseArgs } from 'node:util'
import { BOOK_SIZES, type BookBar, type BookPlanDay, DEFAULT_BOOK_COSTS, simulateBook } from '../src/domain/book.js'
import { summariseBook } from '../src/domain/book-summary.js'
import { boardOf } from '../src/domain/codes.js'
import { limitPrices } from '../src/domain/regime.js'
import { SCREEN_RULES } from '../src/domain/screening.js'

const { values } = parseArgs({ options: { dir: { type: 'string' }, plan: { type: 'string', multiple: true } } })
if (!values.dir || !values.plan?.length) throw new Error('usage: --dir BUNDLE --plan PLAN.json [--plan ...]')
const iso = (d: string) => `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}`

async function* csv(file: string): AsyncGenerator<string[]> {
  let header = true
  for await (const line of readline.createInterface({ input: createReadStream(file) })) {
    if (header) header = false
    else yield line.split(',')
  }
}

interface Series {
  dates: string[]
  open: number[]
  close: number[]
  amount: number[]
}
const byCode = new Map<string, Series>()
for await (const r of csv(path.join(values.dir, 'daily.csv'))) {
  let s = byCode.get(r[0]!)
  if (!s) {
    s = { dates: [], open: [], close: [], amount: [] }
    byCode.set(r[0]!, s)
  }
  s.dates.push(iso(r[1]!))
  s.open.push(Number(r[2]))
  s.close.push(Number(r[5]))
  s.amount.push(Number(r[10]) * 1000)
}
const index = new Map<string, number>()
for await (const r of csv(path.join(values.dir, 'index_daily.csv'))) index.set(iso(r[1]!), Number(r[2]))
const calendar = [...new Set([...byCode.values()].flatMap((s) => s.dates))].sort()
const position = new Map([...byCode].map(([code, s]) => [code, new Map(s.dates.map((d, i) => [d, i]))]))

function mean(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length
}

const bars = new Map<string, BookBar>()
function bar(code: string, date: string): BookBar | null {
  const key = `${code} ${date}`
  const memo = bars.get(key)
  if (memo) return memo
  const s = byCode.get(code)
  const i = position.get(code)?.get(date)
  const board = boardOf(code)
  if (!s || i === undefined || !board || board === 'b_share') return null
  const before = Math.max(0, i - 20)
  const returns = s.close.slice(before + 1, i).map((c, k) => c / s.close[before + k]! - 1)
  const limits = i > 0 ? limitPrices(s.close[i - 1]!, board, false, date, i + 1) : null
  const out: BookBar = {
    open: s.open[i]!,
    close: s.close[i]!,
    adj: 1,
    limitUp: limits?.up ?? null,
    limitDown: limits?.down ?? null,
    amount20d: i > 0 ? mean(s.amount.slice(before, i)) : null,
    vol20d:
      returns.length >= 10
        ? Math.sqrt(returns.reduce((a, r) => a + (r - mean(returns)) ** 2, 0) / (returns.length - 1))
        : null,
  }
  bars.set(key, out)
  return out
}

/** EW close-to-close return on calendar[t] of the names investable at calendar[t - 1]. */
const universe = new Map<string, number>()
for (let t = 1; t < calendar.length; t++) {
  const prev = calendar[t - 1]!
  const date = calendar[t]!
  const rets: number[] = []
  for (const [code, s] of byCode) {
    const at = position.get(code)!
    const i = at.get(prev)
    const j = at.get(date)
    if (i === undefined || j === undefined || i + 1 < SCREEN_RULES.minListedDays) continue
    if (boardOf(code) === 'b_share') continue
    if (mean(s.amount.slice(Math.max(0, i - 19), i + 1)) < SCREEN_RULES.minAmountMa20) continue
    rets.push(s.close[j]! / s.close[i]! - 1)
  }
  if (rets.length > 0) universe.set(date, mean(rets))
}
const benchmark = new Map<string, number>()
for (let t = 1; t < calendar.length; t++) {
  const a = index.get(calendar[t]!)
  const b = index.get(calendar[t - 1]!)
  if (a !== undefined && b !== undefined) benchmark.set(calendar[t]!, a / b - 1)
}
const market = {
  calendar,
  bar,
  universeReturn: (d: string) => universe.get(d) ?? null,
  benchmarkReturn: (d: string) => benchmark.get(d) ?? null,
}

const pct = (x: number | null, d = 3) => (x === null ? 'n/a' : `${(100 * x).toFixed(d)}%`)
for (const file of values.plan) {
  const plan = JSON.parse(readFileSync(file, 'utf8')) as BookPlanDay[]
  for (const bookSize of BOOK_SIZES) {
    const days = simulateBook(plan, market, { depth: 20, bookSize, costs: DEFAULT_BOOK_COSTS })
    for (const pick of ['universe', 'benchmark'] as const) {
      const s = summariseBook(days, pick)
      console.log(
        [
          path.basename(file),
          `${bookSize / 1e6} M`,
          `vs ${pick}`,
          `${s.days} days ${s.from}..${s.to}`,
          `gross ${pct(s.grossExcess.mean)} (t ${s.grossExcess.t?.toFixed(2)})`,
          `net ${pct(s.netExcess.mean)} (t ${s.netExcess.t?.toFixed(2)})`,
          `net IR ${s.netIr?.toFixed(2)}`,
          `cum net ${pct(s.cumulativeNetExcess, 1)}`,
          `annual ${pct(s.annualisedNetExcess, 1)}`,
          `max DD ${pct(s.maxDrawdown, 1)}`,
          `worst month ${s.worstMonth?.period} ${pct(s.worstMonth?.excess ?? null, 1)}`,
          `turnover ${pct(s.turnover, 1)}`,
          `cost drag ${pct(s.costDrag, 1)}/yr`,
          `cash ${pct(s.meanCash, 1)}`,
        ].join(' | '),
      )
      if (bookSize === 100e6 && pick === 'universe')
        console.log(`  quarters: ${s.quarters.map((q) => `${q.period} ${pct(q.excess, 1)}`).join(', ')}`)
    }
  }
}
