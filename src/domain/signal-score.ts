/**
 * The PLAN_VERSION 3 score: the weighted sum of a stock's rank-normalised signals over the signals it has (a
 * missing signal's weight goes to the others, never imputed points), mapped to 0..100 by its percentile among the
 * day's eligible stocks, and shared out as points per signal that add up to the score.
 */
import type { SignalWeights } from './signal-weights.js'
import { SIGNAL_NAMES, type SignalName, type SignalValues } from './signals.js'
import { lowerBound, roundTo, upperBound } from './stats.js'

export interface Combined {
  /** Σ w·z / Σ|w| over the signals the stock has, in [-1, 1]; null when none of them carries weight. */
  readonly raw: number | null
  /**
   * Each available signal's oriented, weighted value: |w| × (sign(w)·z + 1) / 2 / Σ|w|. They sum to (raw + 1) / 2,
   * the raw score moved onto [0, 1], so a signal's share of it is its share of the score.
   */
  readonly parts: Partial<Record<SignalName, number>>
}
// A signal the stock has keeps its key in `parts` even at weight 0 (0 points): only a missing one has none.

export function combineSignals(z: SignalValues, weights: SignalWeights): Combined {
  let total = 0
  let sum = 0
  const used: SignalName[] = []
  for (const name of SIGNAL_NAMES) {
    const value = z[name]
    const w = weights[name].weight
    if (value === undefined) continue
    total += Math.abs(w)
    sum += w * value
    used.push(name)
  }
  if (total === 0) return { raw: null, parts: Object.fromEntries(used.map((n) => [n, 0])) }
  const parts: Partial<Record<SignalName, number>> = {}
  for (const name of used) {
    const w = weights[name].weight
    parts[name] = (Math.abs(w) * (Math.sign(w) * z[name]! + 1)) / 2 / total
  }
  return { raw: sum / total, parts }
}

/** Percentile (0..100) of `value` among `reference` (sorted ascending), ties counting half. */
export function percentileAmong(reference: readonly number[], value: number): number {
  if (reference.length === 0) return 0
  const below = lowerBound(reference, value)
  const notAbove = upperBound(reference, value, below)
  return (100 * (below + (notAbove - below) / 2)) / reference.length
}

/**
 * The score shared out among the signals in proportion to their parts, each rounded to 0.01; the last rounding
 * residue goes to the largest part, so the points add up to the score exactly (at 0.01).
 */
export function scorePoints(
  score: number,
  parts: Partial<Record<SignalName, number>>,
  digits = 2,
): Record<string, number> {
  const names = SIGNAL_NAMES.filter((n) => parts[n] !== undefined)
  const total = names.reduce((s, n) => s + parts[n]!, 0)
  const out: Record<string, number> = {}
  if (names.length === 0) return out
  if (total <= 0) {
    for (const n of names) out[n] = 0
    out[names[0]!] = roundTo(score, digits)
    return out
  }
  let largest = names[0]!
  for (const n of names) {
    out[n] = roundTo((score * parts[n]!) / total, digits)
    if (parts[n]! > parts[largest]!) largest = n
  }
  const residue = roundTo(score - names.reduce((s, n) => s + out[n]!, 0), digits)
  out[largest] = roundTo(out[largest]! + residue, digits)
  return out
}
