/** The stock list: codes by board mix, synthetic Chinese names, industries, listing dates, ST and suspensions. */
import { type Board, type Exchange, parseCode } from '../../domain/codes.js'
import { addDays, weekday } from './calendar.js'
import { INDUSTRIES, type Industry } from './industries.js'
import { Random } from './random.js'

export interface Security {
  /** Position in code order; rows of every file follow it. */
  readonly index: number
  readonly code: string
  readonly exchange: Exchange
  readonly board: Board
  readonly name: string
  readonly industry: Industry
  readonly listDate: string
  /** Calendar index of the first bar: 0 unless listed inside the window. */
  readonly firstBar: number
  readonly isNew: boolean
  readonly isSt: boolean
  /** Calendar index of the first suspended day (suspended through the last date); calendar length when never. */
  readonly suspendFrom: number
}

interface BoardGroup {
  readonly share: number
  readonly prefixes: readonly string[]
}

/** About 40% SH main, 25% SZ main, 20% ChiNext, 10% STAR, 5% BSE. */
const GROUPS: readonly BoardGroup[] = [
  { share: 0.4, prefixes: ['600', '601', '603', '605'] },
  { share: 0.25, prefixes: ['000', '001', '002', '003'] },
  { share: 0.2, prefixes: ['300', '301'] },
  { share: 0.1, prefixes: ['688'] },
  { share: 0.05, prefixes: ['920'] },
]

/** The most stocks the code ranges allow at this mix (ChiNext and STAR run out first). */
export const MAX_STOCKS = 10_000

const NAME_CHARS = [
  ...'华瑞金鼎恒盛信达泰安嘉宏远新源海天中正凯隆宇博创航通智德元辰星晟润锦欣祥旭阳光明诚众合力英杰汇丰腾飞龙银川江山东南西北兴昌晶科美佳康永福全益联贵宁和顺盈浩蓝峰云松林春秋怡卓伟',
]

/** Largest-remainder split of `total` by shares. */
function apportion(total: number, shares: readonly number[]): number[] {
  const raw = shares.map((s) => s * total)
  const counts = raw.map(Math.floor)
  let left = total - counts.reduce((a, b) => a + b, 0)
  const order = raw.map((r, i) => [r - Math.floor(r), i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1])
  for (const [, i] of order) {
    if (left <= 0) break
    counts[i] = counts[i]! + 1
    left--
  }
  return counts
}

function pickSymbols(rng: Random, prefixes: readonly string[], count: number): string[] {
  const candidates: string[] = []
  for (const prefix of prefixes) {
    for (let n = 0; n < 1000; n++) {
      const symbol = `${prefix}${String(n).padStart(3, '0')}`
      // 000300 is the CSI 300's number: keep the stock list clear of it.
      if (symbol !== '000300') candidates.push(symbol)
    }
  }
  return rng.sample(candidates, count)
}

function pickIndustry(rng: Random, board: Board): Industry {
  const listed = INDUSTRIES.filter((i) => (i.boards[board] ?? 0) > 0)
  return listed[rng.weightedIndex(listed.map((i) => i.boards[board] ?? 0))]!
}

function uniqueName(rng: Random, industry: Industry, taken: Set<string>): string {
  for (let attempt = 0; ; attempt++) {
    const first = rng.pick(NAME_CHARS)
    let second = rng.pick(NAME_CHARS)
    while (second === first) second = rng.pick(NAME_CHARS)
    const tail = attempt < 30 ? '' : rng.pick(['股份', '控股', '集团', '科技'])
    const name = `${first}${second}${rng.pick(industry.suffixes)}${tail}`
    if (!taken.has(name)) {
      taken.add(name)
      return name
    }
    if (attempt > 200) {
      const numbered = `${name}${attempt}`
      taken.add(numbered)
      return numbered
    }
  }
}

/** A weekday `back` calendar days before `date`. */
function weekdayBefore(date: string, back: number): string {
  let iso = addDays(date, -back)
  while (weekday(iso) === 0 || weekday(iso) === 6) iso = addDays(iso, -1)
  return iso
}

export function generateSecurities(seed: number, stocks: number, calendar: readonly string[]): Security[] {
  const days = calendar.length
  const rng = new Random(seed, 'securities')
  const counts = apportion(
    stocks,
    GROUPS.map((g) => g.share),
  )
  const symbols = GROUPS.flatMap((g, i) => pickSymbols(rng, g.prefixes, counts[i]!)).sort()

  // Roles drawn from one shuffle, so they never overlap: new listings, suspensions, ST (main board first).
  const order = rng.shuffle(symbols.map((_, i) => i))
  const newCount = Math.max(1, Math.round(stocks * 0.03))
  const suspendedCount = Math.max(1, Math.round(stocks * 0.01))
  const stCount = Math.max(1, Math.round(stocks * 0.02))
  const isNew = new Set(order.slice(0, newCount))
  const isSuspended = new Set(order.slice(newCount, newCount + suspendedCount))
  const rest = order.slice(newCount + suspendedCount)
  const isMain = (i: number) => boardOfSymbol(symbols[i]!) === 'main'
  const mainFirst = [...rest.filter(isMain), ...rest.filter((i) => !isMain(i))]
  const isSt = new Set(mainFirst.slice(0, stCount))

  const firstDate = calendar[0]!
  const names = new Set<string>()
  return symbols.map((symbol, index) => {
    const parsed = parseCode(symbol)
    if (!parsed.ok) throw new Error(`generated an invalid code ${symbol}: ${parsed.reason}`)
    const own = new Random(seed, 'security', symbol)
    const industry = pickIndustry(own, parsed.board)
    const st = isSt.has(index)
    const baseName = uniqueName(own, industry, names)
    const fresh = isNew.has(index)
    let firstBar = 0
    let listDate: string
    if (fresh) {
      const lo = Math.max(1, days - 60)
      const hi = Math.max(lo, days - 2)
      firstBar = own.int(lo, hi)
      listDate = calendar[firstBar]!
    } else {
      listDate = weekdayBefore(firstDate, own.int(400, 7000))
    }
    const suspendFrom = isSuspended.has(index) ? own.int(Math.max(1, days - 15), Math.max(1, days - 1)) : days
    return {
      index,
      code: parsed.code,
      exchange: parsed.exchange,
      board: parsed.board,
      name: st ? `${own.chance(0.5) ? '*ST' : 'ST'}${baseName}` : baseName,
      industry,
      listDate,
      firstBar,
      isNew: fresh,
      isSt: st,
      suspendFrom,
    }
  })
}

function boardOfSymbol(symbol: string): Board | undefined {
  const parsed = parseCode(symbol)
  return parsed.ok ? parsed.board : undefined
}
