/**
 * Theme co-movement of the demo market: each theme has an i.i.d. daily factor return theta_k,t ~ N(0, 1.2%) that a
 * stock follows by the weight of its strongest edge. Pure co-movement: nothing about a theme predicts its returns.
 */
import { Random } from './random.js'
import type { Security } from './securities.js'
import type { ThemeGraph } from './themes.js'

export const THEME_VOL = 0.012

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
