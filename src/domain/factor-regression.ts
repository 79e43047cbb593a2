/**
 * A daily excess return regressed on factor returns by least squares, with Newey-West (Bartlett) standard errors:
 * what the book earns beyond its loadings on size and reversal (issue 47). Pure.
 */
import { neweyWestLags } from './track-stats.js'

export interface FactorSeries {
  readonly name: string
  readonly values: readonly number[]
}

export interface FactorFit {
  readonly days: number
  /** The intercept: the daily excess not explained by the factors. */
  readonly alpha: number
  readonly alphaT: number | null
  readonly loadings: ReadonlyArray<{ readonly name: string; readonly beta: number; readonly t: number | null }>
  readonly r2: number
}

/** Inverse of a small symmetric positive-definite matrix by Gauss-Jordan; null when singular. */
function invert(m: number[][]): number[][] | null {
  const n = m.length
  const a = m.map((row, i) => [...row, ...Array.from({ length: n }, (_, j) => (i === j ? 1 : 0))])
  for (let c = 0; c < n; c++) {
    let pivot = c
    for (let r = c + 1; r < n; r++) if (Math.abs(a[r]![c]!) > Math.abs(a[pivot]![c]!)) pivot = r
    if (Math.abs(a[pivot]![c]!) < 1e-18) return null
    ;[a[c], a[pivot]] = [a[pivot]!, a[c]!]
    const p = a[c]![c]!
    for (let j = 0; j < 2 * n; j++) a[c]![j]! /= p
    for (let r = 0; r < n; r++) {
      if (r === c) continue
      const f = a[r]![c]!
      if (f !== 0) for (let j = 0; j < 2 * n; j++) a[r]![j]! -= f * a[c]![j]!
    }
  }
  return a.map((row) => row.slice(n))
}

/**
 * OLS of `y` on an intercept and the factors (days where any value is not finite are left out). The covariance of
 * the coefficients is Newey-West's with Bartlett weights (lags from the day count unless given), as the book's
 * other t statistics. Null with fewer days than coefficients + 2 or collinear factors.
 */
export function regressOnFactors(
  y: readonly number[],
  factors: readonly FactorSeries[],
  lags?: number,
): FactorFit | null {
  const k = factors.length + 1
  const rows: number[][] = []
  const ys: number[] = []
  for (let t = 0; t < y.length; t++) {
    const x = [1, ...factors.map((f) => f.values[t] ?? Number.NaN)]
    if (!Number.isFinite(y[t]!) || !x.every(Number.isFinite)) continue
    rows.push(x)
    ys.push(y[t]!)
  }
  const n = rows.length
  if (n < k + 2) return null
  const xtx = Array.from({ length: k }, () => new Array<number>(k).fill(0))
  const xty = new Array<number>(k).fill(0)
  for (let t = 0; t < n; t++)
    for (let i = 0; i < k; i++) {
      xty[i]! += rows[t]![i]! * ys[t]!
      for (let j = 0; j < k; j++) xtx[i]![j]! += rows[t]![i]! * rows[t]![j]!
    }
  const inv = invert(xtx)
  if (!inv) return null
  const beta = inv.map((row) => row.reduce((a, v, j) => a + v * xty[j]!, 0))
  const resid = ys.map((v, t) => v - rows[t]!.reduce((a, x, i) => a + x * beta[i]!, 0))
  const L = lags ?? neweyWestLags(n)
  // S = Σ_l w_l Σ_t (x_t e_t)(x_{t-l} e_{t-l})' (+ its transpose for l > 0)
  const s = Array.from({ length: k }, () => new Array<number>(k).fill(0))
  const g = rows.map((x, t) => x.map((v) => v * resid[t]!))
  for (let l = 0; l <= Math.min(L, n - 1); l++) {
    const w = l === 0 ? 1 : 1 - l / (L + 1)
    for (let t = l; t < n; t++)
      for (let i = 0; i < k; i++)
        for (let j = 0; j < k; j++) {
          const v = g[t]![i]! * g[t - l]![j]!
          s[i]![j]! += l === 0 ? v : w * v
          if (l > 0) s[j]![i]! += w * v
        }
  }
  const cov = inv.map((row) => s[0]!.map((_, j) => row.reduce((a, v, m) => a + v * s[m]![j]!, 0)))
  const sandwich = cov.map((row) => inv[0]!.map((_, j) => row.reduce((a, v, m) => a + v * inv[m]![j]!, 0)))
  const tOf = (i: number): number | null => {
    const variance = sandwich[i]![i]!
    return variance > 0 ? beta[i]! / Math.sqrt(variance) : null
  }
  const mean = ys.reduce((a, v) => a + v, 0) / n
  const total = ys.reduce((a, v) => a + (v - mean) ** 2, 0)
  const rss = resid.reduce((a, v) => a + v * v, 0)
  return {
    days: n,
    alpha: beta[0]!,
    alphaT: tOf(0),
    loadings: factors.map((f, i) => ({ name: f.name, beta: beta[i + 1]!, t: tOf(i + 1) })),
    r2: total > 0 ? 1 - rss / total : 0,
  }
}
