/**
 * The investable universe as the main book meets it (issue 47), defined once for the book, its report, the page and
 * the docs. Investable on plan day T = eligible on T (`isEligible`: traded, not ST, listed at least 60 trading days,
 * 20-day mean traded value at least 50 M CNY, no hard invalidation). On the book's day D (the next trading day) the
 * universe is a costless equal-weighted book that trades as the main book does: it holds T's names overnight, and at
 * D's open rebalances into those it can buy (a name opening at its limit up is not bought), marked at D's close. Its
 * return on D is (1 + overnight) × (1 + intraday) − 1 of those two legs. The size and reversal factors and the
 * traded-value-matched benchmark are legs of the same universe measured the same way. Pure.
 */

/** One name investable on plan day T, with its prices on the book's day D. */
export interface UniverseName {
  readonly code: string
  readonly amountMa20: number
  /** Return over the 20 trading days to T's close (back-adjusted); null with less history. */
  readonly ret20: number | null
  /** D's open over T's close, less 1 (back-adjusted); null when it has no bar on D (then it earns nothing). */
  readonly overnight: number | null
  /** D's close over D's open, less 1; null when it has no bar on D. */
  readonly intraday: number | null
  /** Opened at its limit up on D: not bought that day. */
  readonly openAtLimitUp: boolean
}

export interface UniverseDay {
  /** The universe's return on D; null when no name traded on D. */
  readonly ret: number | null
  readonly names: number
  /** Low-minus-high traded value: the bottom tercile of 20-day traded value less the top tercile, on D. */
  readonly sizeFactor: number | null
  /** Losers-minus-winners: the bottom tercile of the 20-day return less the top tercile, on D. */
  readonly reversalFactor: number | null
  /** Mean over the target names in the universe of their traded-value decile's return on D. */
  readonly matchedRet: number | null
}

/** The return on D of an equal-weighted costless leg of the universe; null when none of its names traded on D. */
export function legReturn(names: readonly UniverseName[]): number | null {
  let overnight = 0
  let traded = 0
  let intraday = 0
  let bought = 0
  for (const n of names) {
    if (n.intraday === null) continue
    traded++
    overnight += n.overnight ?? 0
    if (n.openAtLimitUp) continue
    bought++
    intraday += n.intraday
  }
  if (traded === 0) return null
  // a name without a bar on D is held at T's close: it counts in the overnight leg with nothing earned
  return (1 + overnight / names.length) * (1 + (bought ? intraday / bought : 0)) - 1
}

/** Splits names sorted by `key` (ascending, nulls left out) into `groups` groups of (nearly) equal size. */
function groupsBy(
  names: readonly UniverseName[],
  key: (n: UniverseName) => number | null,
  groups: number,
): UniverseName[][] {
  const sorted = names
    .filter((n) => key(n) !== null && Number.isFinite(key(n)!))
    .sort((a, b) => key(a)! - key(b)! || (a.code < b.code ? -1 : 1))
  const out: UniverseName[][] = Array.from({ length: groups }, () => [])
  for (let i = 0; i < sorted.length; i++) out[Math.floor((i * groups) / sorted.length)]!.push(sorted[i]!)
  return out
}

function spread(low: readonly UniverseName[], high: readonly UniverseName[]): number | null {
  const a = legReturn(low)
  const b = legReturn(high)
  return a === null || b === null ? null : a - b
}

export const SIZE_GROUPS = 3
export const MATCH_DECILES = 10

export function universeDay(names: readonly UniverseName[], target: readonly string[]): UniverseDay {
  const bySize = groupsBy(names, (n) => n.amountMa20, SIZE_GROUPS)
  const byReturn = groupsBy(names, (n) => n.ret20, SIZE_GROUPS)
  const deciles = groupsBy(names, (n) => n.amountMa20, MATCH_DECILES)
  const decileOf = new Map<string, number>()
  for (let k = 0; k < deciles.length; k++) for (const n of deciles[k]!) decileOf.set(n.code, k)
  const decileRet = deciles.map(legReturn)
  const matched: number[] = []
  for (const code of new Set(target)) {
    const k = decileOf.get(code)
    const r = k === undefined ? null : decileRet[k]
    if (r !== null && r !== undefined) matched.push(r)
  }
  return {
    ret: legReturn(names),
    names: names.length,
    sizeFactor: spread(bySize[0]!, bySize[SIZE_GROUPS - 1]!),
    reversalFactor: spread(byReturn[0]!, byReturn[SIZE_GROUPS - 1]!),
    matchedRet: matched.length ? matched.reduce((a, b) => a + b, 0) / matched.length : null,
  }
}

/** The rule in words, for the report, the page and the docs. */
export const UNIVERSE_RULE =
  'equal weights over the names eligible on the plan day (A shares, traded, not ST, listed at least 60 trading days, 20-day mean traded value at least 50 M CNY); held overnight, rebalanced at the next open into the names buyable then (not opening at the limit up), marked at the close: the same day as the book, without costs'
