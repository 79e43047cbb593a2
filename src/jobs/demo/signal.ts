/**
 * The planted factor structure of the demo market (issue 10), so a track record has something true to find.
 *
 * Each theme has a daily factor return theta_k,t ~ N(0, 1.2%), i.i.d. (no momentum of its own); a stock moves
 * with its strongest theme by its edge weight w. The stock's expected return on day t is
 *
 *   alpha_i,t = signal x STRENGTH x vol_i x g_i,t,   g = (z_quality + z_momentum) / sqrt(2)
 *
 * where both z-scores are cross-sectional, over the stocks listed on t, from what was known at the close of t-1:
 * - z_quality: the ROE of the latest report announced by t-1 (clipped to +-3);
 * - z_momentum: theme-driven momentum, w x (sum of the theme's factor returns over the 20 days to t-1).
 * So g is a persistent quality tilt plus a slowly moving theme-momentum tilt, equal shares of its variance.
 * With `signal = 0` nothing predicts returns: alpha is 0 and the generator also drops the hot-theme drift and
 * the IPO pop (see prices.ts), leaving only unpredictable noise, market, industry and theme co-movement.
 */
import type { FinancialRow } from './fundamentals.js'
import { Random } from './random.js'
import type { Security } from './securities.js'
import type { ThemeGraph } from './themes.js'

/** alpha per unit of g, in units of the stock's daily volatility, at `signal = 1`. */
export const STRENGTH = 0.06
export const THEME_VOL = 0.012
export const MOMENTUM_DAYS = 20

export interface PlantedSignal {
  /** Per stock index: its theme co-movement w x theta_k,t per day (zeros without a theme). */
  readonly themeMove: Float64Array[]
  /** Per stock index: g_i,t per day (0 before listing); alpha_i,t = signal x STRENGTH x vol_i x g_i,t. */
  readonly factor: Float64Array[]
}

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
    values[i] = present[i] ? Math.max(-3, Math.min(3, (values[i]! - mean) / sd)) : 0
}

export function plantSignal(
  seed: number,
  securities: readonly Security[],
  graph: ThemeGraph,
  reports: ReadonlyArray<readonly FinancialRow[]>,
  calendar: readonly string[],
): PlantedSignal {
  const days = calendar.length
  const themes = [...new Set(graph.edges.map((e) => e.theme))].sort()
  const theta = new Map<string, Float64Array>()
  for (const theme of themes) {
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
  const themeMove = securities.map((s) => {
    const out = new Float64Array(days)
    const edge = strongest[s.index]
    if (edge) {
      const th = theta.get(edge.theme)!
      for (let t = 0; t < days; t++) out[t] = edge.weight * th[t]!
    }
    return out
  })
  const factor = securities.map(() => new Float64Array(days))
  const quality = new Float64Array(securities.length)
  const momentum = new Float64Array(securities.length)
  const present = new Uint8Array(securities.length)
  const reportAt = new Int32Array(securities.length)
  for (let t = 1; t < days; t++) {
    const known = calendar[t - 1]!
    for (const s of securities) {
      const i = s.index
      present[i] = t > s.firstBar ? 1 : 0
      const list = reports[i]!
      while (reportAt[i]! + 1 < list.length && list[reportAt[i]! + 1]!.annDate <= known) reportAt[i]!++
      const report = list[reportAt[i]!]
      quality[i] = report && report.annDate <= known ? report.roe : 0
      let sum = 0
      const move = themeMove[i]!
      for (let k = Math.max(0, t - MOMENTUM_DAYS); k < t; k++) sum += move[k]!
      momentum[i] = sum
    }
    zScores(quality, present)
    zScores(momentum, present)
    for (let i = 0; i < securities.length; i++)
      factor[i]![t] = present[i] ? (quality[i]! + momentum[i]!) / Math.SQRT2 : 0
  }
  return { themeMove, factor }
}
