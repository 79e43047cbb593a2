/**
 * Tier decision of the day (PLAN_VERSION 3): see `TIER_RULES`. Pure: the build passes the day's scored rows,
 * whether the regime is weak, yesterday's published `main` and why `main` must be empty, if it must.
 */
import { TIER_RULES, type Tier } from './build-rules.js'
import type { TierRow } from './plan-types.js'
import { screenReason } from './screening.js'

type Untiered = Omit<TierRow, 'tier' | 'tier_rule'>

export interface TierCuts {
  readonly eligible: number
  /** Lowest score in `main` (null: main is empty). */
  readonly main: number | null
  /** The same on a normal day; differs from `main` only on a weak-regime day. */
  readonly mainNormal: number | null
  /** Score at or above which a row not in `main` is `observe`. */
  readonly observe: number
  readonly weak: boolean
  /** Names kept in `main` from yesterday's by the stay band. */
  readonly kept: number
  /** Why `main` is empty, in words; null when it is not. */
  readonly emptyReason: string | null
}

export interface Tiered<T> {
  readonly rows: Array<T & { tier: Tier; tier_rule: string }>
  readonly cuts: TierCuts
  /** Rows that would have been `main` on a normal day and are `observe` because the regime is weak. */
  readonly weakDemoted: number
}

export interface TierContext {
  readonly weak: boolean
  /** Yesterday's published `main` codes. */
  readonly previousMain: ReadonlySet<string>
  /** Set when no signal carries weight: `main` stays empty with this reason. */
  readonly noModel?: string | null
}

/** How the tier rule of a row moved to observe by a weak regime starts. */
export const WEAK_REGIME_RULE = 'weak regime:'

const NOBODY_HELD: ReadonlySet<string> = new Set()

/** Passes the build-time screen (not suspended, not ST, listed long enough, liquid) and no hard invalidation. */
export function isEligible(
  row: Pick<TierRow, 'code' | 'invalidated' | 'is_suspended' | 'is_st' | 'listed_days' | 'amount_ma20'>,
): boolean {
  return !row.invalidated && screenReason(row, NOBODY_HELD) === undefined
}

const blockedAtOpen = (row: Untiered): boolean =>
  row.flags.includes('limit_up_close') || row.flags.includes('one_word_board')

const f1 = (v: number): string => v.toFixed(1)
const byScore = (a: Untiered, b: Untiered): number => b.score - a.score || (a.code < b.code ? -1 : 1)

/** Yesterday's `main` names still inside the stay band, then today's best entrants, up to `slots`. */
function pickMain(rows: readonly Untiered[], ctx: TierContext, slots: number): Untiered[] {
  const R = TIER_RULES
  const kept = rows.filter((r) => ctx.previousMain.has(r.code) && isEligible(r) && r.score >= R.stayPct).sort(byScore)
  const entrants = rows
    .filter((r) => !ctx.previousMain.has(r.code) && isEligible(r) && r.score >= R.entryPct && !blockedAtOpen(r))
    .sort(byScore)
  return [...kept, ...entrants].slice(0, slots)
}

export function assignTiers<T extends Untiered>(rows: readonly T[], ctx: TierContext): Tiered<T> {
  const R = TIER_RULES
  const n = rows.filter(isEligible).length
  const emptyReason =
    ctx.noModel ?? (n === 0 ? 'no stock passes the screen today (suspended, ST, new, illiquid or invalidated)' : null)
  const normal = emptyReason ? [] : pickMain(rows, ctx, R.mainSlots)
  const main = ctx.weak ? normal.slice(0, R.weakMainSlots) : normal
  const mainCodes = new Set(main.map((r) => r.code))
  const normalCodes = new Set(normal.map((r) => r.code))
  const kept = main.filter((r) => ctx.previousMain.has(r.code)).length
  let weakDemoted = 0
  const out = rows.map((row) => {
    let tier: Tier
    let rule: string
    const stays = ctx.previousMain.has(row.code)
    if (row.invalidated) {
      tier = 'reject'
      rule = `hard invalidation: ${row.invalidation ?? 'triggered'}`
    } else if (mainCodes.has(row.code)) {
      tier = 'main'
      rule = stays
        ? `score ${f1(row.score)} >= stay band ${R.stayPct}: kept from yesterday's main`
        : `score ${f1(row.score)} >= entry ${R.entryPct} (percentile among ${n} eligible), a free main place`
    } else if (normalCodes.has(row.code)) {
      tier = 'observe'
      weakDemoted++
      rule = `${WEAK_REGIME_RULE} main limited to ${R.weakMainSlots} places; score ${f1(row.score)} would be main on a normal day`
    } else if (row.score >= R.observePct) {
      tier = 'observe'
      rule =
        emptyReason !== null
          ? `score ${f1(row.score)} >= observe ${R.observePct}; main is empty: ${emptyReason}`
          : isEligible(row) && blockedAtOpen(row) && row.score >= R.entryPct
            ? `score ${f1(row.score)} >= entry ${R.entryPct} but ${row.flags.includes('one_word_board') ? 'a one-word board' : 'closed limit-up'} on T: not buyable at the open, no main place`
            : isEligible(row) && row.score >= R.entryPct
              ? `score ${f1(row.score)} >= entry ${R.entryPct}, but main's ${R.mainSlots} places are taken`
              : `score ${f1(row.score)} >= observe ${R.observePct} (percentile among ${n} eligible)`
    } else {
      tier = 'reject'
      rule =
        stays && isEligible(row)
          ? `score ${f1(row.score)} fell below the stay band ${R.stayPct}: left main`
          : `score ${f1(row.score)} below observe ${R.observePct} (percentile among ${n} eligible)`
    }
    return { ...row, tier, tier_rule: rule }
  })
  const lowest = (list: readonly Untiered[]): number | null =>
    list.length === 0 ? null : Math.min(...list.map((r) => r.score))
  return {
    rows: out,
    cuts: {
      eligible: n,
      main: lowest(main),
      mainNormal: lowest(normal),
      observe: R.observePct,
      weak: ctx.weak,
      kept,
      emptyReason,
    },
    weakDemoted,
  }
}
