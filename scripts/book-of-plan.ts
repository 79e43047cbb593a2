/**
 * The main book of a plan file (`scripts/walk-forward-research.ts --plan FILE`) simulated with the service's own
 * `simulateBook` over a tushare bundle's bars, against the book's own universe (`src/domain/book-universe.ts`: the
 * names eligible on the plan day, measured over the same day and with the same tradability as the book) and CSI 300:
 * the headline costs (`DEFAULT_BOOK_COSTS`) at 20, 100 and 300 M CNY, then at 100 M the edge net of size and reversal
 * (`bookAttribution`) and the cost sensitivity table (`costSensitivity`).
 *
 *   npx tsx scripts/book-of-plan.ts --dir BUNDLE --plan PLAN.json [--plan OTHER.json ...] [--attempts N]
 *     [--sizes 20,100,300]   (book sizes in M CNY; the attribution and the sensitivity table are at 100 M)
 *
 * The bundle's prices are forward-adjusted (adj 1); limit prices come from the previous adjusted close
 * (`limitPrices`); no stock counts as ST (the set has no ST history) and the set has no listing dates, so a name's
 * listing age is counted from its first bar when that is after the set's first day. Figures of record:
 * `stockplan replay` + `stockplan evaluate`.
 */
import { createReadStream, readFileSync } from 'node:fs'
import path from 'node:path'
import readline from 'node:readline'
import { parseArgs } from 'node:util'
import {
  BOOK_SIZES,
  type BookBar,
  type BookMarket,
  type BookPlanDay,
  DEFAULT_BOOK_COSTS,
  simulateBook,
} from '../src/domain/book.js'
import { bookAttribution, costSensitivity, type DayFactors, RESEARCH_ATTEMPTS } from '../src/domain/book-attribution.js'
import { summariseBook } from '../src/domain/book-summary.js'
import { type UniverseName, universeDay } from '../src/domain/book-universe.js'
import { boardOf } from '../src/domain/codes.js'
import { limitPrices } from '../src/domain/regime.js'
import { isEligible } from '../src/domain/tiers.js'

const { values } = parseArgs({
  options: {
    dir: { type: 'string' },
    plan: { type: 'string', multiple: true },
    attempts: { type: 'string' },
    sizes: { type: 'string' },
  },
})
if (!values.dir || !values.plan?.length) throw new Error('usage: --dir BUNDLE --plan PLAN.json [--plan ...]')
const attempts = values.attempts ? Number(values.attempts) : RESEARCH_ATTEMPTS
const bookSizes = values.sizes ? values.sizes.split(',').map((m) => Number(m) * 1e6) : [...BOOK_SIZES]
if (bookSizes.some((size) => !(size > 0)))
  throw new Error(`--sizes takes book sizes in M CNY separated by commas, e.g. 20,100,300; got ${values.sizes}`)
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
const dayIndex = new Map(calendar.map((d, i) => [d, i]))
const position = new Map([...byCode].map(([code, s]) => [code, new Map(s.dates.map((d, i) => [d, i]))]))

function mean(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length
}

/** Trading days listed by `date`: the set's names before its first day count as long listed. */
function listedDays(s: Series, i: number): number {
  return s.dates[0]! > calendar[0]! ? i + 1 : 99_999
}

function limitsOn(code: string, s: Series, i: number) {
  const board = boardOf(code)
  if (i === 0 || !board || board === 'b_share') return null
  return limitPrices(s.close[i - 1]!, board, false, s.dates[i]!, listedDays(s, i))
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
  const limits = limitsOn(code, s, i)
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

/** The names eligible on plan day T with their prices on D (the next trading day). */
function universeNames(t: number): UniverseName[] {
  const T = calendar[t]!
  const D = calendar[t + 1]
  const out: UniverseName[] = []
  for (const [code, s] of byCode) {
    const i = position.get(code)!.get(T)
    if (i === undefined) continue
    const amountMa20 = mean(s.amount.slice(Math.max(0, i - 19), i + 1))
    const row = {
      code,
      invalidated: false,
      is_suspended: false,
      is_st: false,
      listed_days: listedDays(s, i),
      amount_ma20: amountMa20,
    }
    if (!isEligible(row)) continue
    const j = D === undefined ? undefined : position.get(code)!.get(D)
    const limits = j === undefined ? null : limitsOn(code, s, j)
    out.push({
      code,
      amountMa20,
      ret20: i >= 20 ? s.close[i]! / s.close[i - 20]! - 1 : null,
      overnight: j === undefined ? null : s.open[j]! / s.close[i]! - 1,
      intraday: j === undefined ? null : s.close[j]! / s.open[j]! - 1,
      openAtLimitUp: j !== undefined && limits !== null && s.open[j]! >= limits.up - 1e-9,
    })
  }
  return out
}

const benchmark = new Map<string, number>()
for (let t = 1; t < calendar.length; t++) {
  const a = index.get(calendar[t]!)
  const b = index.get(calendar[t - 1]!)
  if (a !== undefined && b !== undefined) benchmark.set(calendar[t]!, a / b - 1)
}

const pct = (x: number | null | undefined, d = 3) =>
  x === null || x === undefined ? 'n/a' : `${(100 * x).toFixed(d)}%`
const num = (x: number | null | undefined, d = 2) => (x === null || x === undefined ? 'n/a' : x.toFixed(d))

for (const file of values.plan) {
  const plan = JSON.parse(readFileSync(file, 'utf8')) as BookPlanDay[]
  // the universe of each plan day, with the plan's own `main` for the matched benchmark
  const universe = new Map<string, number | null>()
  const factors = new Map<string, DayFactors>()
  let names = 0
  for (const day of plan) {
    const t = dayIndex.get(day.date)
    if (t === undefined || t + 1 >= calendar.length) continue
    const u = universeDay(universeNames(t), day.main.slice(0, 20))
    names += u.names
    universe.set(calendar[t + 1]!, u.ret)
    factors.set(calendar[t + 1]!, { size: u.sizeFactor, reversal: u.reversalFactor, matched: u.matchedRet })
  }
  const market: BookMarket = {
    calendar,
    bar,
    universeReturn: (d) => universe.get(d) ?? null,
    benchmarkReturn: (d) => benchmark.get(d) ?? null,
  }
  const holds = plan.map((d) => d.main.length)
  console.log(
    `${path.basename(file)}: ${plan.length} plan days, main names a day min ${Math.min(...holds)} / median ${[...holds].sort((a, b) => a - b)[Math.floor(holds.length / 2)]} / max ${Math.max(...holds)}, days with >= 10: ${pct(holds.filter((n) => n >= 10).length / holds.length, 1)}; universe ${Math.round(names / Math.max(1, universe.size))} names a day`,
  )
  for (const bookSize of bookSizes) {
    const days = simulateBook(plan, market, { depth: 20, bookSize, costs: DEFAULT_BOOK_COSTS })
    for (const pick of ['universe', 'benchmark'] as const) {
      const s = summariseBook(days, pick)
      console.log(
        [
          `${bookSize / 1e6} M`,
          `vs ${pick}`,
          `${s.days} days ${s.from}..${s.to}`,
          `gross ${pct(s.grossExcess.mean)} (t ${num(s.grossExcess.t)})`,
          `net ${pct(s.netExcess.mean)} (t ${num(s.netExcess.t)})`,
          `net IR ${num(s.netIr)}`,
          `cum net ${pct(s.cumulativeNetExcess, 1)}`,
          `max DD ${pct(s.maxDrawdown, 1)}`,
          `worst month ${s.worstMonth?.period} ${pct(s.worstMonth?.excess, 1)}`,
          `turnover ${pct(s.turnover, 2)}`,
          `cost drag ${pct(s.costDrag, 1)}/yr`,
          `cash ${pct(s.meanCash, 1)}`,
        ].join(' | '),
      )
      if (bookSize === 100e6 && pick === 'universe')
        console.log(`  quarters: ${s.quarters.map((q) => `${q.period} ${pct(q.excess, 1)}`).join(', ')}`)
    }
    if (bookSize !== 100e6) continue
    const a = bookAttribution(days, factors, attempts)
    for (const leg of ['gross', 'net'] as const) {
      const fit = a[leg]
      console.log(
        `  ${leg} excess on size + reversal: alpha ${pct(fit?.alpha)} (t ${num(fit?.alpha_t)}), ${fit?.loadings.map((l) => `${l.name} ${num(l.beta)} (t ${num(l.t)})`).join(', ')}, R² ${num(fit?.r2)}`,
      )
    }
    console.log(
      `  vs traded-value-matched benchmark: gross ${pct(a.matched.gross.mean)} (t ${num(a.matched.gross.t)}), net ${pct(a.matched.net.mean)} (t ${num(a.matched.net.t)})`,
    )
    const d = a.deflated_sharpe
    console.log(
      `  deflated Sharpe ratio (${d?.attempts} attempts, ${d?.days} days): net IR ${num(d?.net_ir)} against a lucky best of ${num(d?.lucky_best_ir)}: ${num(d?.probability)}`,
    )
    for (const row of costSensitivity(plan, market, { depth: 20, bookSize, simulated: days })) {
      console.log(
        `  impact ${row.impact}, cap ${pct(row.adv_cap, 0)}: net ${pct(row.net_excess.mean)} (t ${num(row.net_excess.t)}), net IR ${num(row.net_ir)}, turnover ${pct(row.turnover, 1)}, cost drag ${pct(row.cost_drag, 1)}/yr`,
      )
    }
  }
}
