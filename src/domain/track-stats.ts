/** Statistics of the track record: rank correlation, Newey-West t, drawdown. Pure functions, no I/O. */

/** Average ranks (1-based), ties sharing their mean rank. */
export function averageRanks(values: readonly number[]): Float64Array {
  const n = values.length
  const order = new Uint32Array(n)
  for (let i = 0; i < n; i++) order[i] = i
  order.sort((a, b) => values[a]! - values[b]!)
  const ranks = new Float64Array(n)
  let i = 0
  while (i < n) {
    let j = i
    while (j + 1 < n && values[order[j + 1]!] === values[order[i]!]) j++
    const rank = (i + j) / 2 + 1
    for (let k = i; k <= j; k++) ranks[order[k]!] = rank
    i = j + 1
  }
  return ranks
}

export function pearson(x: ArrayLike<number>, y: ArrayLike<number>): number | null {
  const n = x.length
  if (n < 3 || y.length !== n) return null
  let mx = 0
  let my = 0
  for (let i = 0; i < n; i++) {
    mx += x[i]!
    my += y[i]!
  }
  mx /= n
  my /= n
  let sxy = 0
  let sxx = 0
  let syy = 0
  for (let i = 0; i < n; i++) {
    const dx = x[i]! - mx
    const dy = y[i]! - my
    sxy += dx * dy
    sxx += dx * dx
    syy += dy * dy
  }
  if (sxx === 0 || syy === 0) return null
  return sxy / Math.sqrt(sxx * syy)
}

/** Spearman's rank correlation (Pearson of average ranks); null under 3 pairs or when one side is constant. */
export function spearman(x: readonly number[], y: readonly number[]): number | null {
  if (x.length < 3) return null
  return pearson(averageRanks(x), averageRanks(y))
}

export interface SeriesSummary {
  readonly n: number
  readonly mean: number | null
  readonly sd: number | null
  /** t of the mean; Newey-West with `lags` lags (Bartlett weights) when lags > 0. */
  readonly t: number | null
}

export function sampleSd(values: readonly number[]): number | null {
  const n = values.length
  if (n < 2) return null
  const m = values.reduce((a, b) => a + b, 0) / n
  let s = 0
  for (const v of values) s += (v - m) ** 2
  return Math.sqrt(s / (n - 1))
}

/**
 * Mean and its t-statistic. With lags L > 0 the variance of the mean is Newey-West's:
 * (g0 + 2 sum_{k=1..L} (1 - k/(L+1)) gk) / n with gk = sum_{t>k} (x_t - m)(x_{t-k} - m) / n, which accounts for
 * the overlap of h-day windows started on consecutive days (L = h - 1). With L = 0 it is the plain s / sqrt(n).
 */
export function summarise(values: readonly number[], lags = 0): SeriesSummary {
  const n = values.length
  if (n === 0) return { n, mean: null, sd: null, t: null }
  const m = values.reduce((a, b) => a + b, 0) / n
  const sd = sampleSd(values)
  if (n < 2) return { n, mean: m, sd, t: null }
  let variance: number
  if (lags <= 0) {
    variance = sd === null ? 0 : (sd * sd) / n
  } else {
    const gamma = (k: number): number => {
      let s = 0
      for (let t = k; t < n; t++) s += (values[t]! - m) * (values[t - k]! - m)
      return s / n
    }
    let lrv = gamma(0)
    for (let k = 1; k <= Math.min(lags, n - 1); k++) lrv += 2 * (1 - k / (lags + 1)) * gamma(k)
    variance = lrv / n
  }
  return { n, mean: m, sd, t: variance > 0 ? m / Math.sqrt(variance) : null }
}

/** Largest peak-to-trough fall of a value curve, as a positive fraction of the peak (0 when it never falls). */
export function maxDrawdown(values: readonly number[], start = 1): number {
  let peak = start
  let worst = 0
  for (const v of values) {
    if (v > peak) peak = v
    if (peak > 0) worst = Math.max(worst, (peak - v) / peak)
  }
  return worst
}
