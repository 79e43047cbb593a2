/**
 * Tier decision from the day's cross-section (DESIGN §8 "Build", as replaced by the calibration issue): see
 * `TIER_RULES`. Pure: the build passes the day's scored rows and whether the regime is weak.
 */
import { TIER_RULES, type Tier } from './build-rules.js'
import type { TierRow } from './plan-types.js'
import { screenReason } from './screening.js'
import { roundTo } from './stats.js'

type Untiered = Omit<TierRow, 'tier' | 'tier_rule'>

export interface TierCuts {
  readonly eligible: number
  /** Score at or above which a row is `main` (null: none is). */
  readonly main: number | null
  /** The cut a normal day would have had; differs from `main` only on a weak-regime day. */
  readonly mainNormal: number | null
  readonly observe: number | null
  readonly weak: boolean
}

export interface Tiered<T> {
  readonly rows: Array<T & { tier: Tier; tier_rule: string }>
  readonly cuts: TierCuts
  /** Rows that would have been `main` on a normal day and are `observe` because the regime is weak. */
  readonly weakDemoted: number
}

/** How the tier rule of a row moved to observe by a weak regime starts. */
export const WEAK_REGIME_RULE = 'weak regime:'

const NOBODY_HELD: ReadonlySet<string> = new Set()

function eligible(row: Untiered): boolean {
  return !row.invalidated && screenReason({ ...row, tier: 'reject', tier_rule: '' }, NOBODY_HELD) === undefined
}

/** The score of the k-th best (1-based) of `sorted` (descending), or null when k is 0 or the floor is not met. */
function cutAt(sorted: readonly number[], share: number, floor: number): number | null {
  const k = Math.ceil(roundTo(share * sorted.length, 9)) // 0.15 x 200 is 30.000000000000004 in binary
  if (k === 0) return null
  const score = sorted[Math.min(k, sorted.length) - 1]!
  return Math.max(score, floor)
}

const f1 = (v: number): string => v.toFixed(1)

export function assignTiers<T extends Untiered>(rows: readonly T[], weak: boolean): Tiered<T> {
  const R = TIER_RULES
  const scores = rows
    .filter(eligible)
    .map((r) => r.score)
    .sort((a, b) => b - a)
  const mainNormal = cutAt(scores, R.mainShare, R.mainFloor)
  const main = weak ? cutAt(scores, R.weakMainShare, R.mainFloor) : mainNormal
  const observe = cutAt(scores, R.mainShare + R.observeShare, R.observeFloor)
  const n = scores.length
  const mainPct = Math.round((weak ? R.weakMainShare : R.mainShare) * 1000) / 10
  let weakDemoted = 0
  const out = rows.map((row) => {
    let tier: Tier
    let rule: string
    if (row.invalidated) {
      tier = 'reject'
      rule = `hard invalidation: ${row.invalidation ?? 'triggered'}`
    } else if (main !== null && row.score >= main) {
      tier = 'main'
      rule = `score ${f1(row.score)} >= main cut ${f1(main)} (top ${mainPct}% of ${n} eligible, floor ${R.mainFloor})`
    } else if (observe !== null && row.score >= observe) {
      tier = 'observe'
      const demoted = weak && mainNormal !== null && row.score >= mainNormal
      if (demoted && eligible(row)) weakDemoted++
      rule = demoted
        ? `${WEAK_REGIME_RULE} main limited to the top ${mainPct}% (cut ${f1(main ?? 0)}); score ${f1(row.score)} would be main on a normal day`
        : `score ${f1(row.score)} >= observe cut ${f1(observe)} (below main cut ${main === null ? 'none' : f1(main)})`
    } else {
      tier = 'reject'
      rule =
        observe === null
          ? `no observe cut: ${n} eligible rows`
          : `score ${f1(row.score)} below the day's observe cut ${f1(observe)} (top ${Math.round((R.mainShare + R.observeShare) * 100)}% of ${n} eligible, floor ${R.observeFloor})`
    }
    return { ...row, tier, tier_rule: rule }
  })
  return { rows: out, cuts: { eligible: n, main, mainNormal, observe, weak }, weakDemoted }
}
