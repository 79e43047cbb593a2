/**
 * The deflated Sharpe ratio (Bailey and López de Prado 2014): the probability that a strategy's true Sharpe ratio is
 * above the best one that `trials` skill-less tries would show by luck, given the sample's length, skewness and
 * kurtosis. Per-period (daily) Sharpe ratios throughout; the variance of the tries' Sharpe ratios is the null's,
 * 1 / (T − 1), since the tries' own figures were not all kept. Pure.
 */
import { normalCdf, normalQuantile } from './normal.js'

const EULER_GAMMA = 0.5772156649015329

/** Expected largest of `trials` Sharpe ratios drawn from N(0, variance) (the false-strategy theorem). */
export function expectedMaxSharpe(trials: number, variance: number): number {
  if (trials <= 1) return 0
  const a = normalQuantile(1 - 1 / trials)
  const b = normalQuantile(1 - 1 / (trials * Math.E))
  return Math.sqrt(variance) * ((1 - EULER_GAMMA) * a + EULER_GAMMA * b)
}

export interface DeflatedSharpe {
  readonly days: number
  readonly trials: number
  /** Annualised (√252) Sharpe ratio of the series, and the best of `trials` lucky tries would show. */
  readonly sharpeAnnual: number
  readonly luckyBestAnnual: number
  /** P(true Sharpe > the lucky best): above 0.95 is the usual bar. */
  readonly probability: number
}

/** The deflated Sharpe ratio of a daily series after `trials` attempts; null with fewer than 20 days or no spread. */
export function deflatedSharpe(returns: readonly number[], trials: number): DeflatedSharpe | null {
  const n = returns.length
  if (n < 20) return null
  const mean = returns.reduce((a, b) => a + b, 0) / n
  const m2 = returns.reduce((a, r) => a + (r - mean) ** 2, 0) / n
  if (!(m2 > 0)) return null
  const m3 = returns.reduce((a, r) => a + (r - mean) ** 3, 0) / n
  const m4 = returns.reduce((a, r) => a + (r - mean) ** 4, 0) / n
  const skew = m3 / m2 ** 1.5
  const kurtosis = m4 / m2 ** 2
  const sr = mean / Math.sqrt((m2 * n) / (n - 1))
  const sr0 = expectedMaxSharpe(trials, 1 / (n - 1))
  const denominator = Math.sqrt(Math.max(1e-12, 1 - skew * sr + ((kurtosis - 1) / 4) * sr * sr))
  return {
    days: n,
    trials,
    sharpeAnnual: sr * Math.sqrt(252),
    luckyBestAnnual: sr0 * Math.sqrt(252),
    probability: normalCdf(((sr - sr0) * Math.sqrt(n - 1)) / denominator),
  }
}
