/** Small numeric helpers shared by the pure domain modules. No I/O, no clock, no randomness. */

/**
 * Rounds half away from zero to `digits` decimals. The product is first cut to 12 significant digits so that
 * binary noise does not decide the half: 1.005 -> 1.01 and 10.05 x 1.1 = 11.055000000000001 -> 11.06.
 */
export function roundTo(value: number, digits: number): number {
  const factor = 10 ** digits
  const exact = Math.abs(value) * factor
  const scaled = nearHalf(exact) ? Number(exact.toPrecision(12)) : exact
  const rounded = (Math.sign(value) * Math.round(scaled)) / factor
  return rounded === 0 ? 0 : rounded // never -0
}

/**
 * Whether 12 significant digits could move `x` across a rounding boundary (k + 0.5): they move it by at most
 * 5e-12 of itself, so anywhere farther from the boundary rounds the same without them, and the string round trip
 * (a build rounds some 150,000 numbers) is only needed near it.
 */
function nearHalf(x: number): boolean {
  return Math.abs(x - Math.floor(x) - 0.5) <= 1e-11 * Math.max(1, x) || !Number.isFinite(x)
}

export function clamp(value: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, value))
}

/** Arithmetic mean; null for an empty list. */
export function mean(values: readonly number[]): number | null {
  if (values.length === 0) return null
  let sum = 0
  for (const v of values) sum += v
  return sum / values.length
}

/**
 * Percentile by linear interpolation between closest ranks (the "inclusive" definition of Excel's
 * PERCENTILE.INC and numpy's default): sort ascending, h = (n - 1) x p on 0-based ranks,
 * result = x[floor h] + (h - floor h) x (x[floor h + 1] - x[floor h]). P0 is the minimum, P100 the maximum.
 * `p` is a fraction in [0, 1]. Null for an empty list; non-finite values are ignored.
 */
export function percentile(values: readonly number[], p: number): number | null {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b)
  if (sorted.length === 0) return null
  const h = (sorted.length - 1) * clamp(p, 0, 1)
  const lo = Math.floor(h)
  const below = sorted[lo]!
  const above = sorted[Math.min(lo + 1, sorted.length - 1)]!
  return below + (h - lo) * (above - below)
}

/** Linear score: `zero` maps to 0, `full` to 100, clamped; `zero > full` gives a falling band (lower is better). */
export function linearBand(value: number, zero: number, full: number): number {
  return clamp(((value - zero) / (full - zero)) * 100, 0, 100)
}

/** Freezes an object and everything reachable from it (rules objects must not change at run time). */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const child of Object.values(value)) deepFreeze(child)
  }
  return value
}

/** The first index of `sorted` (ascending) whose value is not below `value`: a binary search. */
export function lowerBound<T>(sorted: ArrayLike<T>, value: T, from = 0, to = sorted.length): number {
  let lo = from
  let hi = to
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (sorted[mid]! < value) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** The first index of `sorted` (ascending) whose value is above `value`. */
export function upperBound<T>(sorted: ArrayLike<T>, value: T, from = 0, to = sorted.length): number {
  let lo = from
  let hi = to
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (sorted[mid]! <= value) lo = mid + 1
    else hi = mid
  }
  return lo
}
