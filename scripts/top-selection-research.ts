/**
 * Research harness for issue 38 ("selection at the top"): which bars-only signals, and which way of learning their
 * weights, make the top 20 of the investable names (the `main` book) beat the equal-weighted investable universe.
 * Everything walk-forward: a day's weights read only ICs whose exit is on or before that day.
 *
 *   npx tsx scripts/top-selection-research.ts --dir BUNDLE --from 2024-05-06 [--to D] [--report singles,books]
 *
 * The book here is a proxy of `simulateBook`: each day T's 20 names (stay band and entry cut as in `tiers.ts`,
 * entrants that closed limit-up on T skipped) earn their open-to-open return from T+1 to T+2 against the same
 * return of T's investable universe (traded, 20-day mean amount >= 50 M CNY, listed >= 60 bars); turnover is the
 * share of names that changed, and costs are `--cost` (default 0.33%) per unit of one-sided turnover, the rate
 * the figures imply (12% a day costing 0.039%). Figures of record come from `stockplan replay` + `evaluate`.
 *
 * Candidate signals are computed here from the bars (the service's own are in src/domain/signals.ts); a signal kept
 * moves there and is checked again with scripts/walk-forward-research.ts, which calls the service's pure rules.
 */
import { createReadStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import readline from 'node:readline'
import { parseArgs } from 'node:util'
import { averageRanks, longRunVariance, pearson } from '../src/domain/track-stats.js'

const { values: args } = parseArgs({
  options: {
    dir: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    report: { type: 'string', default: 'singles,books' },
    cost: { type: 'string', default: '0.0033' },
    cache: { type: 'string' },
  },
})
if (!args.dir || !args.from) throw new Error('usage: --dir BUNDLE --from YYYY-MM-DD [--to D] [--report singles,books]')
const COST = Number(args.cost)
const reports = new Set(args.report!.split(','))
const iso = (d: string) => `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}`

async function* csv(file: string): AsyncGenerator<string[]> {
  const lines = readline.createInterface({ input: createReadStream(file) })
  let header = true
  for await (const line of lines) {
    if (header) header = false
    else yield line.split(',')
  }
}

// ---- bars as day x code matrices (NaN: no bar) ----
// ---- bars as day x code matrices (NaN: no bar), and the features; cached as Float32 columns with --cache DIR ----
const FEATURES = [
  'reversal_5d',
  'reversal_20d',
  'momentum_6m_skip_1m',
  'abnormal_turnover',
  'volatility',
  'idio_volatility',
  'size',
  'trend',
  'liquidity',
  // candidates aimed at the top of the cross-section
  'max_return',
  'limit_hits',
  'overnight',
  'intraday',
  'turnover_volatility',
  'amihud',
  'high_distance',
  'price_volume_corr',
  'skewness',
  'range_volatility',
  'min_return',
] as const
type Feature = (typeof FEATURES)[number]
const limitPct = (code: string) =>
  code.startsWith('688') || code.startsWith('30') ? 0.2 : code.endsWith('.BJ') ? 0.3 : 0.1
const MATRICES = ['O', 'C', 'amount20', 'bars', ...FEATURES] as const
const started = performance.now()
const industryOf = new Map<string, string>()
for await (const r of csv(path.join(args.dir, 'stock_basic.csv'))) industryOf.set(r[0]!, r[4] || '?')
let codes: string[]
let calendar: string[]
let M: Record<(typeof MATRICES)[number], Float64Array>
if (args.cache && existsSync(path.join(args.cache, 'meta.json'))) {
  ;({ codes, calendar } = JSON.parse(readFileSync(path.join(args.cache, 'meta.json'), 'utf8')))
  M = Object.fromEntries(
    MATRICES.map((m) => {
      const b = readFileSync(path.join(args.cache!, `${m}.f32`))
      return [m, Float64Array.from(new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4))]
    }),
  ) as typeof M
} else {
  ;({ codes, calendar, M } = await compute())
  if (args.cache) {
    mkdirSync(args.cache, { recursive: true })
    writeFileSync(path.join(args.cache, 'meta.json'), JSON.stringify({ codes, calendar }))
    for (const m of MATRICES) writeFileSync(path.join(args.cache, `${m}.f32`), new Float32Array(M[m]))
  }
}
const D = calendar.length
const N = codes.length
const matrix = () => new Float64Array(D * N).fill(Number.NaN)
const { O, C, amount20, bars } = M
const F = M as unknown as Record<Feature, Float64Array>
process.stderr.write(`bars and features (${((performance.now() - started) / 1000).toFixed(0)} s)\n`)

async function compute() {
  const rowsByCode = new Map<string, string[][]>()
  for await (const r of csv(path.join(args.dir!, 'daily.csv'))) {
    const list = rowsByCode.get(r[0]!)
    if (list) list.push(r)
    else rowsByCode.set(r[0]!, [r])
  }
  const codes = [...rowsByCode.keys()].filter((c) => !/^(900|200)/.test(c)).sort()
  const calendar = [...new Set([...rowsByCode.values()].flatMap((rs) => rs.map((r) => iso(r[1]!))))].sort()
  const dayOf = new Map(calendar.map((d, i) => [d, i]))
  const D = calendar.length
  const N = codes.length
  const matrix = () => new Float64Array(D * N).fill(Number.NaN)
  const O = matrix()
  const H = matrix()
  const L = matrix()
  const C = matrix()
  const V = matrix()
  const A = matrix()
  codes.forEach((code, j) => {
    for (const r of rowsByCode.get(code)!) {
      const t = dayOf.get(iso(r[1]!))!
      const k = t * N + j
      O[k] = Number(r[2])
      H[k] = Number(r[3])
      L[k] = Number(r[4])
      C[k] = Number(r[5])
      V[k] = Number(r[9]) * 100
      A[k] = Number(r[10]) * 1000
    }
  })
  rowsByCode.clear()
  const indexClose = new Map<string, number>()
  for await (const r of csv(path.join(args.dir!, 'index_daily.csv'))) indexClose.set(iso(r[1]!), Number(r[2]))
  process.stderr.write(`loaded ${N} codes x ${D} days (${((performance.now() - started) / 1000).toFixed(0)} s)\n`)

  // ---- features: per code, over its own traded bars (the service's bars skip suspended days too) ----
  const F: Record<Feature, Float64Array> = Object.fromEntries(FEATURES.map((f) => [f, matrix()])) as Record<
    Feature,
    Float64Array
  >
  const amount20 = matrix() // mean amount of the last 20 traded bars up to T (the screen)
  const bars = new Int32Array(D * N) // traded bars so far (listed days)
  const indexRet = new Float64Array(D).fill(Number.NaN)
  for (let t = 1; t < D; t++) {
    const a = indexClose.get(calendar[t]!)
    const b = indexClose.get(calendar[t - 1]!)
    if (a !== undefined && b !== undefined) indexRet[t] = a / b - 1
  }

  function sd(xs: number[]): number {
    const m = xs.reduce((a, b) => a + b, 0) / xs.length
    return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1))
  }

  for (let j = 0; j < N; j++) {
    const ts: number[] = []
    for (let t = 0; t < D; t++) if (!Number.isNaN(C[t * N + j]!)) ts.push(t)
    const c = ts.map((t) => C[t * N + j]!)
    const o = ts.map((t) => O[t * N + j]!)
    const h = ts.map((t) => H[t * N + j]!)
    const l = ts.map((t) => L[t * N + j]!)
    const v = ts.map((t) => V[t * N + j]!)
    const a = ts.map((t) => A[t * N + j]!)
    const r = c.map((x, i) => (i === 0 ? Number.NaN : x / c[i - 1]! - 1))
    const lim = limitPct(codes[j]!)
    for (let i = 0; i < ts.length; i++) {
      const k = ts[i]! * N + j
      bars[k] = i + 1
      const win = (n: number, from = i - n + 1) => Math.max(1, from)
      const a20 = a.slice(Math.max(0, i - 19), i + 1)
      amount20[k] = a20.reduce((x, y) => x + y, 0) / a20.length
      if (i < 20) continue
      const r20 = r.slice(win(20), i + 1)
      const set = (f: Feature, x: number) => {
        if (Number.isFinite(x)) F[f][k] = x
      }
      set('reversal_5d', -(c[i]! / c[i - 5]! - 1))
      set('reversal_20d', -(c[i]! / c[i - 20]! - 1))
      if (i >= 120) set('momentum_6m_skip_1m', c[i - 20]! / c[i - 120]! - 1)
      if (i >= 40) {
        const vl = v.slice(Math.max(0, i - 59), i + 1)
        set(
          'abnormal_turnover',
          v.slice(i - 4, i + 1).reduce((x, y) => x + y, 0) / 5 / (vl.reduce((x, y) => x + y, 0) / vl.length),
        )
      }
      set('volatility', sd(r20))
      if (i >= 60) {
        const xs: number[] = []
        const ys: number[] = []
        for (let q = i - 59; q <= i; q++) {
          const x = indexRet[ts[q]!]!
          if (!Number.isNaN(x)) {
            xs.push(x)
            ys.push(r[q]!)
          }
        }
        if (xs.length >= 40) {
          const mx = xs.reduce((p, q) => p + q, 0) / xs.length
          const my = ys.reduce((p, q) => p + q, 0) / ys.length
          let sxy = 0
          let sxx = 0
          for (let q = 0; q < xs.length; q++) {
            sxy += (xs[q]! - mx) * (ys[q]! - my)
            sxx += (xs[q]! - mx) ** 2
          }
          const beta = sxy / sxx
          set('idio_volatility', sd(ys.map((y, q) => y - my - beta * (xs[q]! - mx))))
        }
        const a60 = a.slice(i - 59, i + 1)
        set('size', Math.log(a60.reduce((x, y) => x + y, 0) / 60))
        set(
          'trend',
          c.slice(i - 19, i + 1).reduce((x, y) => x + y, 0) /
            20 /
            (c.slice(i - 59, i + 1).reduce((x, y) => x + y, 0) / 60) -
            1,
        )
      }
      set('liquidity', Math.log(amount20[k]!))
      set('max_return', Math.max(...r20))
      set('min_return', Math.min(...r20))
      set('limit_hits', r20.filter((x) => x >= lim - 0.005).length)
      let on = 0
      let intra = 0
      let ami = 0
      let rng = 0
      for (let q = i - 19; q <= i; q++) {
        on += Math.log(o[q]! / c[q - 1]!)
        intra += Math.log(c[q]! / o[q]!)
        ami += Math.abs(r[q]!) / Math.max(a[q]!, 1)
        rng += Math.log(h[q]! / l[q]!)
      }
      set('overnight', on)
      set('intraday', intra)
      set('amihud', Math.log(ami / 20 + 1e-15))
      set('range_volatility', rng / 20)
      const v20 = v.slice(i - 19, i + 1)
      const vm = v20.reduce((x, y) => x + y, 0) / 20
      set('turnover_volatility', sd(v20) / vm)
      set('high_distance', c[i]! / Math.max(...c.slice(Math.max(0, i - 119), i + 1)) - 1)
      set('price_volume_corr', pearson(c.slice(i - 19, i + 1), v20) ?? Number.NaN)
      const m = r20.reduce((x, y) => x + y, 0) / 20
      const s = sd(r20)
      set('skewness', r20.reduce((x, y) => x + ((y - m) / s) ** 3, 0) / 20)
    }
  }
  return {
    codes,
    calendar,
    M: { O, C, amount20, bars: Float64Array.from(bars), ...F } as Record<(typeof MATRICES)[number], Float64Array>,
  }
}

// ---- outcomes and the investable universe ----
/** Open of T+1 to open of T+2: what a book bought at T+1's open earns its first day (NaN: not traded both days). */
const oo1 = matrix()
/** Open of T+1 to close of T+5: the service's 5-day outcome. */
const ret5 = matrix()
for (let t = 0; t + 5 < D; t++)
  for (let j = 0; j < N; j++) {
    const o1 = O[(t + 1) * N + j]!
    oo1[t * N + j] = O[(t + 2) * N + j]! / o1 - 1
    ret5[t * N + j] = C[(t + 5) * N + j]! / o1 - 1
  }
const investable = (t: number, j: number) => {
  const k = t * N + j
  return !Number.isNaN(C[k]!) && bars[k]! >= 60 && amount20[k]! >= 50e6
}
const limitUpClose = (t: number, j: number) =>
  t > 0 && C[t * N + j]! >= C[(t - 1) * N + j]! * (1 + limitPct(codes[j]!)) - 0.011
const first = calendar.findIndex((d) => d >= args.from!)
const last = (args.to ? calendar.findLastIndex((d) => d <= args.to!) : D - 1) - 5

const mean = (xs: ArrayLike<number>) => {
  let s = 0
  for (let i = 0; i < xs.length; i++) s += xs[i]!
  return s / xs.length
}
function tStat(xs: number[], lags = 5): number {
  return mean(xs) / Math.sqrt(longRunVariance(xs, lags) / xs.length) || 0
}
const pct = (x: number, d = 3) => `${(100 * x).toFixed(d)}%`

/** Investable names of day t with a value for every listed feature and a 1-day outcome. */
function universe(t: number): number[] {
  const out: number[] = []
  for (let j = 0; j < N; j++) if (investable(t, j) && !Number.isNaN(oo1[t * N + j]!)) out.push(j)
  return out
}
const universes = new Map<number, number[]>()
for (let t = first; t <= last; t++) universes.set(t, universe(t))

/** Rank among `members` mapped to [-1, 1]; NaN where missing (a signal's orientation is the weight's job). */
function ranks(values: Float64Array, t: number, members: number[]): Float64Array {
  const present = members.filter((j) => !Number.isNaN(values[t * N + j]!))
  const r = averageRanks(present.map((j) => values[t * N + j]!))
  const out = new Float64Array(members.length).fill(Number.NaN)
  const pos = new Map(members.map((j, i) => [j, i]))
  present.forEach((j, i) => {
    out[pos.get(j)!] = present.length > 1 ? (2 * (r[i]! - 1)) / (present.length - 1) - 1 : 0
  })
  return out
}

// per day: each feature's ranks among investable names (the columns the scores below combine)
const Z = new Map<number, Record<Feature, Float64Array>>()
for (const [t, members] of universes)
  Z.set(t, Object.fromEntries(FEATURES.map((f) => [f, ranks(F[f], t, members)])) as Record<Feature, Float64Array>)

function icOf(z: Float64Array, t: number, members: number[], outcome: Float64Array): number {
  const xs: number[] = []
  const ys: number[] = []
  members.forEach((j, i) => {
    const y = outcome[t * N + j]!
    if (!Number.isNaN(z[i]!) && !Number.isNaN(y)) {
      xs.push(z[i]!)
      ys.push(y)
    }
  })
  return xs.length < 30 ? Number.NaN : (pearson(averageRanks(xs), averageRanks(ys)) ?? Number.NaN)
}

// ---- report 1: each feature alone among investable names ----
if (reports.has('singles')) {
  console.log(
    `singles ${calendar[first]}..${calendar[last]}: IC among investable (5-day), deciles' 1-day excess (1 = low)`,
  )
  for (const f of FEATURES) {
    const ics: number[] = []
    const dec = Array.from({ length: 10 }, () => [] as number[])
    for (const [t, members] of universes) {
      const z = Z.get(t)![f]
      ics.push(icOf(z, t, members, ret5))
      const u = mean(members.map((j) => oo1[t * N + j]!))
      const sums = new Float64Array(10)
      const counts = new Float64Array(10)
      members.forEach((j, i) => {
        if (Number.isNaN(z[i]!)) return
        const d = Math.min(9, Math.floor(((z[i]! + 1) / 2) * 10))
        sums[d] = sums[d]! + oo1[t * N + j]! - u
        counts[d] = counts[d]! + 1
      })
      for (let d = 0; d < 10; d++) if (counts[d]! > 0) dec[d]!.push(sums[d]! / counts[d]!)
    }
    const good = ics.filter((x) => !Number.isNaN(x))
    const top = dec[9]!
    const bottom = dec[0]!
    console.log(
      `${f.padEnd(20)} IC ${mean(good).toFixed(4)} (t ${tStat(good, 5).toFixed(1)})  deciles ${dec.map((d) => (1e4 * mean(d)).toFixed(1)).join(' ')} bp  top t ${tStat(top, 1).toFixed(1)} bottom t ${tStat(bottom, 1).toFixed(1)}`,
    )
  }
}

// ---- report 2: books from walk-forward scores ----
export interface BookRule {
  readonly name: string
  readonly signals: Readonly<Partial<Record<Feature, number>>> // the prior (sign and size); learned when `learn`
  readonly learn: 'none' | 'ic5' | 'ic1'
  readonly stayPct: number
  readonly entryPct: number
}

function runBook(rule: BookRule) {
  const names = Object.keys(rule.signals) as Feature[]
  const icHistory: Array<{ t: number; exit: number; ic: Record<string, number> }> = []
  let held = new Set<number>()
  const gross: number[] = []
  const net: number[] = []
  const turnover: number[] = []
  const ics: number[] = []
  const filled: number[] = []
  const sizeTilt: number[] = []
  const quarters = new Map<string, number[]>()
  for (let t = first; t <= last; t++) {
    const members = universes.get(t)!
    const z = Z.get(t)!
    // weights: the prior shrunk toward the trailing mean IC (120 days, exit on or before t; prior = 40 days)
    const weights: Record<string, number> = {}
    for (const f of names) {
      const prior = rule.signals[f]!
      if (rule.learn === 'none') {
        weights[f] = prior
        continue
      }
      const known = icHistory.filter((d) => d.exit <= t).slice(-120)
      const xs = known.map((d) => d.ic[f]!).filter((x) => !Number.isNaN(x))
      weights[f] = xs.length < 20 ? prior : (xs.reduce((a, b) => a + b, 0) + 40 * prior) / (xs.length + 40)
    }
    const total = names.reduce((s, f) => s + Math.abs(weights[f]!), 0)
    const raw = members.map((_, i) => {
      let s = 0
      let w = 0
      for (const f of names) {
        const v = z[f][i]!
        if (Number.isNaN(v)) continue
        s += weights[f]! * v
        w += Math.abs(weights[f]!)
      }
      return w > 0 && total > 0 ? s / w : Number.NaN
    })
    const present = members.map((j, i) => ({ j, raw: raw[i]! })).filter((x) => !Number.isNaN(x.raw))
    const r = averageRanks(present.map((x) => x.raw))
    const score = new Map(present.map((x, i) => [x.j, (100 * (r[i]! - 0.5)) / present.length]))
    const byScore = (a: number, b: number) => score.get(b)! - score.get(a)!
    const kept = [...held].filter((j) => (score.get(j) ?? -1) >= rule.stayPct).sort(byScore)
    const entrants = present
      .map((x) => x.j)
      .filter((j) => !held.has(j) && score.get(j)! >= rule.entryPct && !limitUpClose(t, j))
      .sort(byScore)
    const main = [...kept, ...entrants].slice(0, 20)
    const u = mean(members.map((j) => oo1[t * N + j]!))
    const bookRet = mean(main.map((j) => oo1[t * N + j]!))
    const changed = main.filter((j) => !held.has(j)).length / 20
    gross.push(bookRet - u)
    const q = `${calendar[t]!.slice(0, 4)}Q${Math.ceil(Number(calendar[t]!.slice(5, 7)) / 3)}`
    quarters.set(q, [...(quarters.get(q) ?? []), bookRet - u])
    const at = new Map(members.map((j, i) => [j, i]))
    sizeTilt.push(mean(main.map((j) => z.size[at.get(j)!]!).filter((x) => !Number.isNaN(x))))
    // --cost impact: the book's own cost model at 100 M CNY (commission, half-spread, 0.5 x vol x sqrt(order / amount),
    // stamp duty on sells), each name traded at 1/20 of the book; otherwise a flat rate per unit of turnover
    const leavers = [...held].filter((j) => !main.includes(j))
    const entrantsIn = main.filter((j) => !held.has(j))
    const tradeCost = (j: number) =>
      0.00025 + 0.0005 + 0.5 * (F.volatility[t * N + j]! || 0.03) * Math.sqrt(5e6 / (amount20[t * N + j]! || 5e7))
    const cost = Number.isNaN(COST)
      ? (entrantsIn.reduce((a, j) => a + tradeCost(j), 0) + leavers.reduce((a, j) => a + tradeCost(j) + 0.0005, 0)) / 20
      : changed * COST
    net.push(bookRet - u - cost)
    turnover.push(changed)
    filled.push(main.length)
    const scoreCol = new Float64Array(members.map((j) => score.get(j) ?? Number.NaN))
    ics.push(icOf(scoreCol, t, members, ret5))
    icHistory.push({
      t,
      exit: t + (rule.learn === 'ic1' ? 2 : 5),
      ic: Object.fromEntries(names.map((f) => [f, icOf(z[f], t, members, rule.learn === 'ic1' ? oo1 : ret5)])),
    })
    held = new Set(main)
  }
  const goodIc = ics.filter((x) => !Number.isNaN(x))
  const sdNet = Math.sqrt(net.reduce((a, b) => a + (b - mean(net)) ** 2, 0) / (net.length - 1))
  return {
    rule: rule.name,
    days: gross.length,
    gross: pct(mean(gross)),
    grossT: tStat(gross).toFixed(2),
    net: pct(mean(net)),
    netT: tStat(net).toFixed(2),
    netIr: ((mean(net) / sdNet) * Math.sqrt(252)).toFixed(2),
    turnover: pct(mean(turnover), 1),
    ic: mean(goodIc).toFixed(4),
    icT: tStat(goodIc, 5).toFixed(1),
    filled: pct(filled.filter((n) => n >= 20).length / filled.length, 1),
    sizeRank: mean(sizeTilt).toFixed(2),
    quarters: [...quarters].map(([q, xs]) => `${q} ${pct(mean(xs) * xs.length, 1)}`).join(', '),
    halves: [gross.slice(0, gross.length >> 1), gross.slice(gross.length >> 1)].map((h) => pct(mean(h))).join(' / '),
  }
}

const BASE: BookRule['signals'] = {
  reversal_5d: 0.03,
  reversal_20d: 0.02,
  momentum_6m_skip_1m: 0,
  abnormal_turnover: -0.03,
  volatility: -0.02,
  idio_volatility: -0.02,
  size: -0.02,
  trend: 0,
  liquidity: -0.01,
}
const ALL: BookRule['signals'] = Object.fromEntries(FEATURES.map((f) => [f, BASE[f] ?? 0]))
const CALM: BookRule['signals'] = {
  reversal_20d: 0.03,
  high_distance: -0.03,
  liquidity: -0.03,
  intraday: -0.03,
  abnormal_turnover: -0.03,
  max_return: -0.03,
  turnover_volatility: -0.03,
  price_volume_corr: -0.03,
}
const band = { stayPct: 80, entryPct: 95 }
function without(signals: BookRule['signals'], name: Feature): BookRule['signals'] {
  const { [name]: _, ...rest } = signals
  return rest
}
const LOTTERY: BookRule['signals'] = {
  intraday: -0.03,
  abnormal_turnover: -0.03,
  max_return: -0.03,
  turnover_volatility: -0.03,
  price_volume_corr: -0.03,
}
export const RULES: BookRule[] = [
  { name: 'R0 base, IC among investable (5d)', signals: BASE, learn: 'ic5', ...band },
  { name: 'R1 all 20 learned (5d)', signals: ALL, learn: 'ic5', ...band },
  { name: 'R2 calm+contrarian fixed equal', signals: CALM, learn: 'none', ...band },
  { name: 'R3 calm+contrarian learned (5d)', signals: CALM, learn: 'ic5', ...band },
  { name: 'R4 all 20 learned (1d)', signals: ALL, learn: 'ic1', ...band },
  { name: 'R5 calm+contrarian without liquidity', signals: without(CALM, 'liquidity'), learn: 'none', ...band },
  { name: 'R6 calm+contrarian without high_distance', signals: without(CALM, 'high_distance'), learn: 'none', ...band },
  { name: 'R7 calm only (no reversal, distance, liquidity)', signals: LOTTERY, learn: 'none', ...band },
  { name: 'R8 calm+contrarian, stay 90 entry 98', signals: CALM, learn: 'none', stayPct: 90, entryPct: 98 },
  { name: 'R9 calm+contrarian, stay 70 entry 95', signals: CALM, learn: 'none', stayPct: 70, entryPct: 95 },
  { name: 'R10 calm+contrarian + reversal_5d', signals: { ...CALM, reversal_5d: 0.03 }, learn: 'none', ...band },
  {
    name: 'R17 calm+contrarian + large size (offsets the small tilt)',
    signals: { ...CALM, size: 0.03 },
    learn: 'none',
    ...band,
  },
  ...(
    ['reversal_20d', 'intraday', 'abnormal_turnover', 'max_return', 'turnover_volatility', 'price_volume_corr'] as const
  ).map(
    (f, i): BookRule => ({
      name: `R${11 + i} calm+contrarian without ${f}`,
      signals: without(CALM, f),
      learn: 'none',
      ...band,
    }),
  ),
]
const only = process.env.RULES?.split(',')
if (reports.has('books'))
  for (const rule of RULES.filter((r) => !only || only.includes(r.name.split(' ')[0]!)))
    console.log(JSON.stringify(runBook(rule)))
process.stderr.write(`done (${((performance.now() - started) / 1000).toFixed(0)} s)\n`)
