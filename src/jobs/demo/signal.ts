/**
 * The planted factor structure of the demo market (issue 27), so a track record has something true to find that
 * the plan's prior does not expect: medium-term momentum (weight 0 in the prior) and value (a small weight).
 *
 * The stock's expected return on day t is
 *
 *   alpha_i,t = signal x STRENGTH x vol_i x g_i,t,   g = (z_mom + z_ep) / sqrt(2)
 *
 * where both z-scores are cross-sectional over the stocks listed on t, clipped to +-3, from what was known at
 * the close of t-1:
 * - z_mom: momentum skipping the last month, ln(close_t-21 / close_t-121) on forward-adjusted closes; missing
 *   (z = 0) while the stock has fewer than 121 days of history;
 * - z_ep: the earnings yield, the TTM EPS of the latest report announced by t-1 over close_t-1; missing (z = 0)
 *   before the stock's first report is announced.
 * A missing value takes no part in its z-score's mean and sd. Nothing else predicts returns: each theme has an
 * i.i.d. daily factor return theta_k,t ~ N(0, 1.2%) that a stock follows by the weight of its strongest edge,
 * pure co-movement. g depends on the stock's own past closes, so it is computed in the day-by-day price loop.
 * With `signal = 0` alpha is 0 and the generator also drops the hot-theme drift and the IPO pop (prices.ts).
 */
import type { FinancialRow } from './fundamentals.js'
import { Random } from './random.js'
import type { Security } from './securities.js'
import type { ThemeGraph } from './themes.js'

/** alpha per unit of g, in units of the stock's daily volatility, at `signal = 1`. */
export const STRENGTH = 0.056
export const THEME_VOL = 0.012
/** Momentum is ln(close_t-MOMENTUM_SKIP / close_t-MOMENTUM_FROM), on forward-adjusted closes. */
export const MOMENTUM_SKIP = 21
export const MOMENTUM_FROM = 121
const CLIP = 3

/** A stock's theme co-movement: `weight x series[t]` (weight 0 and no series without a theme). */
export interface ThemeMove {
  readonly weight: number
  readonly series: Float64Array | null
}

/** Each stock follows the i.i.d. factor return of its strongest theme by that edge's weight. */
export function themeMoves(seed: number, securities: readonly Security[], graph: ThemeGraph, days: number) {
  const theta = new Map<string, Float64Array>()
  for (const theme of [...new Set(graph.edges.map((e) => e.theme))].sort()) {
    const rng = new Random(seed, 'theme-factor', theme)
    const series = new Float64Array(days)
    for (let t = 0; t < days; t++) series[t] = rng.normal(0, THEME_VOL)
    theta.set(theme, series)
  }
  const strongest = new Array<{ theme: string; weight: number } | null>(securities.length).fill(null)
  for (const e of graph.edges) {
    const best = strongest[e.stockIndex]
    if (!best || e.weight > best.weight || (e.weight === best.weight && e.theme < best.theme))
      strongest[e.stockIndex] = { theme: e.theme, weight: e.weight }
  }
  return securities.map((s): ThemeMove => {
    const edge = strongest[s.index]
    return edge ? { weight: edge.weight, series: theta.get(edge.theme)! } : { weight: 0, series: null }
  })
}

/** Cross-sectional z-scores of the present values in place, clipped; absent entries become 0. */
function zScores(values: Float64Array, present: Uint8Array): void {
  let n = 0
  let sum = 0
  for (let i = 0; i < values.length; i++) {
    if (!present[i]) continue
    n++
    sum += values[i]!
  }
  if (n < 2) {
    values.fill(0)
    return
  }
  const mean = sum / n
  let ss = 0
  for (let i = 0; i < values.length; i++) if (present[i]) ss += (values[i]! - mean) ** 2
  const sd = Math.sqrt(ss / (n - 1)) || 1
  for (let i = 0; i < values.length; i++)
    values[i] = present[i] ? Math.max(-CLIP, Math.min(CLIP, (values[i]! - mean) / sd)) : 0
}

/**
 * The planted factor day by day: `next(t)` gives every stock's g_t from what was `record`ed up to t-1, then the
 * price loop records each listed stock's close of t. Days are stepped in order from 0.
 */
export class PlantedFactor {
  readonly #securities: readonly Security[]
  readonly #reports: ReadonlyArray<readonly FinancialRow[]>
  readonly #calendar: readonly string[]
  /** The last MOMENTUM_FROM forward-adjusted closes per stock, a ring indexed by day. */
  readonly #adjusted: Float64Array
  readonly #lastClose: Float64Array
  readonly #reportAt: Int32Array
  readonly #momentum: Float64Array
  readonly #hasMomentum: Uint8Array
  readonly #ep: Float64Array
  readonly #hasEp: Uint8Array
  readonly #g: Float64Array

  constructor(
    securities: readonly Security[],
    reports: ReadonlyArray<readonly FinancialRow[]>,
    calendar: readonly string[],
  ) {
    const n = securities.length
    this.#securities = securities
    this.#reports = reports
    this.#calendar = calendar
    this.#adjusted = new Float64Array(n * MOMENTUM_FROM)
    this.#lastClose = new Float64Array(n)
    this.#reportAt = new Int32Array(n)
    this.#momentum = new Float64Array(n)
    this.#hasMomentum = new Uint8Array(n)
    this.#ep = new Float64Array(n)
    this.#hasEp = new Uint8Array(n)
    this.#g = new Float64Array(n)
  }

  /** g_i,t for every stock index (0 for a stock not listed before t); valid until the next call. */
  next(t: number): Float64Array {
    const known = t > 0 ? this.#calendar[t - 1]! : ''
    for (const s of this.#securities) {
      const i = s.index
      const history = t - s.firstBar
      this.#hasMomentum[i] = history >= MOMENTUM_FROM ? 1 : 0
      if (this.#hasMomentum[i]) {
        const base = i * MOMENTUM_FROM
        const recent = this.#adjusted[base + ((t - MOMENTUM_SKIP) % MOMENTUM_FROM)]!
        const old = this.#adjusted[base + ((t - MOMENTUM_FROM) % MOMENTUM_FROM)]!
        this.#momentum[i] = Math.log(recent / old)
      }
      const list = this.#reports[i]!
      let at = this.#reportAt[i]!
      while (at + 1 < list.length && list[at + 1]!.annDate <= known) at++
      this.#reportAt[i] = at
      const report = list[at]
      this.#hasEp[i] = history > 0 && report !== undefined && report.annDate <= known ? 1 : 0
      if (this.#hasEp[i]) this.#ep[i] = (report!.eps * 100) / this.#lastClose[i]!
    }
    zScores(this.#momentum, this.#hasMomentum)
    zScores(this.#ep, this.#hasEp)
    for (let i = 0; i < this.#g.length; i++) this.#g[i] = (this.#momentum[i]! + this.#ep[i]!) / Math.SQRT2
    return this.#g
  }

  /** Stock `index`'s close of day t in fen, and its adjust factor on t. */
  record(index: number, t: number, closeFen: number, adjFactor: number): void {
    this.#lastClose[index] = closeFen
    this.#adjusted[index * MOMENTUM_FROM + (t % MOMENTUM_FROM)] = closeFen * adjFactor
  }
}
