/** Statistics of the track record: rank correlation, overlap-robust t, drawdown. Pure functions, no I/O. */

/**
 * Average ranks (1-based), ties sharing their mean rank. The values are sorted as a Float64Array (a native numeric
 * sort: a comparator sort of indices took most of the track record's compute), then each value finds its tie
 * group's rank by binary search.
 */
export function averageRanks(values: ArrayLike<number>): Float64Array {
  const n = values.length
  const sorted = new Float64Array(n)
  for (let k = 0; k < n; k++) sorted[k] = values[k]!
  sorted.sort()
  // rankAt[j]: the mean 1-based rank of the tie group that sorted position j belongs to
  const rankAt = new Float64Array(n)
  let i = 0
  while (i < n) {
    let j = i
    while (j + 1 < n && sorted[j + 1] === sorted[i]) j++
    const rank = (i + j) / 2 + 1
    for (let k = i; k <= j; k++) rankAt[k] = rank
    i = j + 1
  }
  const ranks = new Float64Array(n)
  for (let k = 0; k < n; k++) {
    const v = values[k]!
    let lo = 0
    let hi = n - 1
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (sorted[mid]! < v) lo = mid + 1
      else hi = mid
    }
    ranks[k] = rankAt[lo]!
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
export function spearman(x: ArrayLike<number>, y: ArrayLike<number>): number | null {
  if (x.length < 3) return null
  return pearson(averageRanks(x), averageRanks(y))
}

export interface SeriesSummary {
  readonly n: number
  readonly mean: number | null
  readonly sd: number | null
  /** t of the mean; with `lags` > 0 its variance is the overlap-robust one of `longRunVariance`. */
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

/** Sample autocovariance at lag k: sum_{t>=k} (x_t - m)(x_{t-k} - m) / n. */
function autocovariance(values: readonly number[], mean: number, k: number): number {
  let s = 0
  for (let t = k; t < values.length; t++) s += (values[t]! - mean) * (values[t - k]! - mean)
  return s / values.length
}

/**
 * Long-run variance of a series whose terms overlap by up to `lags` steps (h-day windows started on consecutive
 * days: L = h - 1), so the mean's variance is this / n.
 *
 * Hansen-Hodrick: g0 + 2 sum_{k=1..L} gk, the rectangular kernel. Overlapping windows make the series an
 * MA(h - 1), whose autocovariances beyond h - 1 are zero and within it are not to be shrunk: Bartlett's weights
 * (1 - k/(L+1)) drop about a third of the variance of an h = 5 overlap, and its t came out |t| > 2 on 3 of 10
 * null markets. The rectangular sum can come out non-positive in a short or oddly shaped sample; then Newey-West's
 * Bartlett sum over the same lags, which is never negative, stands in.
 */
export function longRunVariance(values: readonly number[], lags: number, kernel: Kernel = 'rectangular'): number {
  const n = values.length
  if (n === 0) return 0
  const m = values.reduce((a, b) => a + b, 0) / n
  const top = Math.min(Math.max(0, lags), n - 1)
  const gammas: number[] = []
  for (let k = 0; k <= top; k++) gammas.push(autocovariance(values, m, k))
  let rectangular = gammas[0]!
  let bartlett = gammas[0]!
  for (let k = 1; k <= top; k++) {
    rectangular += 2 * gammas[k]!
    bartlett += 2 * (1 - k / (top + 1)) * gammas[k]!
  }
  return kernel === 'rectangular' && rectangular > 0 ? rectangular : bartlett
}

/**
 * Rectangular: Hansen-Hodrick, for a known overlap of h-day windows. Bartlett: Newey-West, for the unknown serial
 * correlation of a daily P&L series, with `neweyWestLags` lags.
 */
export type Kernel = 'rectangular' | 'bartlett'

/** Newey and West's (1994) rule of thumb for the lag count: floor(4 (n / 100)^(2/9)). */
export function neweyWestLags(n: number): number {
  return n > 0 ? Math.floor(4 * (n / 100) ** (2 / 9)) : 0
}

/**
 * Mean and its t-statistic. With lags L > 0 the variance of the mean is `longRunVariance(values, L) / n`
 * (Hansen-Hodrick, for the overlap of h-day windows, L = h - 1); with L = 0 it is the plain s / sqrt(n).
 */
export function summarise(values: readonly number[], lags = 0, kernel: Kernel = 'rectangular'): SeriesSummary {
  const n = values.length
  if (n === 0) return { n, mean: null, sd: null, t: null }
  const m = values.reduce((a, b) => a + b, 0) / n
  const sd = sampleSd(values)
  if (n < 2) return { n, mean: m, sd, t: null }
  const variance = lags <= 0 ? (sd === null ? 0 : (sd * sd) / n) : longRunVariance(values, lags, kernel) / n
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
