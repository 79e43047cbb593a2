/**
 * Tier decision of the day (PLAN_VERSION 6): see `TIER_RULES` and `expected-edge.ts`. Pure: the build passes the
 * day's scored rows, each eligible row's expected excess and trading costs, whether the regime is weak, yesterday's
 * published `main` with how long each name has been in it, and why `main` must be empty, if it must.
 */
import { TIER_RULES, type Tier } from './build-rules.js'
import { EDGE_RULES, type TradeEdge } from './expected-edge.js'
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
  /** Names kept in `main` from yesterday's. */
  readonly kept: number
  /** Why `main` is empty, in words; null when it is not. */
  readonly emptyReason: string | null
}

export interface Tiered<T> {
  readonly rows: Array<T & { tier: Tier; tier_rule: string }>
  readonly cuts: TierCuts
  /** Rows that would have entered `main` on a normal day and did not because the regime is weak. */
  readonly weakDemoted: number
}

export interface TierContext {
  readonly weak: boolean
  /** Yesterday's published `main`: each code with the plan days in a row it has been in `main` (1: since yesterday). */
  readonly previousMain: ReadonlyMap<string, number>
  /** Each eligible row's expected excess over the horizon and its trading costs at the book's size. */
  readonly edges: ReadonlyMap<string, TradeEdge>
  /** The book size the costs are for, CNY (named in the rules' words). */
  readonly bookSize: number
  /** Set when no signal carries weight: `main` stays empty with this reason. */
  readonly noModel?: string | null
}

/** How the tier rule of a row kept out of `main` by a weak regime starts. */
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
const pc = (v: number): string => `${(100 * v).toFixed(2)}%`
const byScore = (a: Untiered, b: Untiered): number => b.score - a.score || (a.code < b.code ? -1 : 1)

/**
 * Expected excess net of a cost per unit of the name's daily volatility: with equal weights each place adds risk in
 * proportion to σ, and α grows with σ, so ranking by return alone fills the book with its most volatile names.
 */
const perRisk = (e: TradeEdge, cost: number): number => (e.alpha - cost) / e.vol

/** How long a holding has been in `main`, and so whether an entrant may replace it (never on a weak day). */
const heldWords = (days: number, weak: boolean): string =>
  days < EDGE_RULES.horizon
    ? `held ${days} of ${EDGE_RULES.horizon} days: not yet switchable`
    : `held ${EDGE_RULES.horizon} days or more: switchable${weak ? ', but a weak day switches nothing' : ''}`

/** Why each row is in `main` or left it, by code. */
type Reasons = Map<string, string>

interface MainPick {
  readonly main: Untiered[]
  readonly reasons: Reasons
  /** Held names that left, with why. */
  readonly left: Reasons
}

/**
 * Yesterday's names that still pay to hold, then (not on a weak day) entrants whose expected excess covers their
 * round trip and whose order fills in a day into the free places (best net of cost per unit of risk first), then
 * switches while one pays for both its trades.
 * Only a name held for the α's whole horizon can be switched out: its round trip was paid for over that horizon.
 */
function pickMain(rows: readonly Untiered[], ctx: TierContext, slots: number, weak: boolean): MainPick {
  const edge = (r: Untiered): TradeEdge => ctx.edges.get(r.code)!
  const reasons: Reasons = new Map()
  const left: Reasons = new Map()
  const main: Untiered[] = []
  for (const r of rows) {
    if (!ctx.previousMain.has(r.code) || !isEligible(r) || !ctx.edges.has(r.code)) continue
    const e = edge(r)
    if (e.alpha >= -e.sell) {
      main.push(r)
      reasons.set(
        r.code,
        `kept from yesterday's main: expected excess ${pc(e.alpha)} >= -${pc(e.sell)}, the cost of selling; ${heldWords(ctx.previousMain.get(r.code)!, weak)}`,
      )
    } else left.set(r.code, `left main: expected excess ${pc(e.alpha)} below -${pc(e.sell)}, the cost of selling`)
  }
  if (weak) return { main: main.sort(byScore).slice(0, slots), reasons, left }
  const entrants = rows
    .filter((r) => !ctx.previousMain.has(r.code) && isEligible(r) && !blockedAtOpen(r) && ctx.edges.has(r.code))
    .filter((r) => edge(r).alpha >= edge(r).roundTrip && edge(r).fillsFirstDay)
    .sort((a, b) => perRisk(edge(b), edge(b).roundTrip) - perRisk(edge(a), edge(a).roundTrip) || byScore(a, b))
  const size = `${ctx.bookSize / 1e6} M CNY`
  while (main.length < slots && entrants.length > 0) {
    const r = entrants.shift()!
    const e = edge(r)
    main.push(r)
    reasons.set(r.code, `entered: expected excess ${pc(e.alpha)} >= round trip ${pc(e.roundTrip)} at ${size}`)
  }
  entrants.sort((a, b) => perRisk(edge(b), edge(b).buy) - perRisk(edge(a), edge(a).buy) || byScore(a, b))
  const switchable = (r: Untiered): boolean => (ctx.previousMain.get(r.code) ?? 0) >= EDGE_RULES.horizon
  for (const r of entrants) {
    let worst = -1
    for (let k = 0; k < main.length; k++) {
      if (!switchable(main[k]!)) continue
      const e = edge(main[k]!)
      if (worst < 0 || e.alpha + e.sell < edge(main[worst]!).alpha + edge(main[worst]!).sell) worst = k
    }
    if (worst < 0) break
    const out = main[worst]!
    const ein = edge(r)
    const eout = edge(out)
    const cost = eout.sell + ein.buy
    if (ein.alpha - eout.alpha < cost) break
    main[worst] = r
    reasons.delete(out.code)
    reasons.set(
      r.code,
      `replaced ${out.code}: expected excess ${pc(ein.alpha)} less its ${pc(eout.alpha)} >= ${pc(cost)}, the switch's cost`,
    )
    if (ctx.previousMain.has(out.code))
      left.set(
        out.code,
        `left main: replaced by ${r.code}, whose expected excess beats it by more than the switch costs`,
      )
  }
  return { main: main.sort(byScore), reasons, left }
}

function outsideRule(row: Untiered, ctx: TierContext, n: number, emptyReason: string | null): string {
  const R = TIER_RULES
  const e = ctx.edges.get(row.code)
  if (emptyReason !== null) return `score ${f1(row.score)} >= observe ${R.observePct}; main is empty: ${emptyReason}`
  if (isEligible(row) && blockedAtOpen(row) && e && e.alpha >= e.roundTrip)
    return `score ${f1(row.score)} >= observe ${R.observePct} but ${row.flags.includes('one_word_board') ? 'a one-word board' : 'closed limit-up'} on T: not buyable at the open, no main place`
  if (isEligible(row) && e && e.alpha >= e.roundTrip && !e.fillsFirstDay)
    return `score ${f1(row.score)}: expected excess ${pc(e.alpha)} covers its round trip ${pc(e.roundTrip)}, but an order of ${ctx.bookSize / EDGE_RULES.places / 1e6} M CNY is above ${100 * EDGE_RULES.costs.advCap}% of its 20-day traded value: it would not fill in a day`
  if (isEligible(row) && e && e.alpha >= e.roundTrip)
    return `score ${f1(row.score)}: expected excess ${pc(e.alpha)} covers its round trip ${pc(e.roundTrip)}, but main's ${R.mainSlots} places are taken and no switch pays (a name is held ${EDGE_RULES.horizon} days before it can be switched)`
  if (isEligible(row) && e)
    return `score ${f1(row.score)} >= observe ${R.observePct}; expected excess ${pc(e.alpha)} below its round trip ${pc(e.roundTrip)} at ${ctx.bookSize / 1e6} M CNY`
  return `score ${f1(row.score)} >= observe ${R.observePct} (percentile among ${n} eligible)`
}

export function assignTiers<T extends Untiered>(rows: readonly T[], ctx: TierContext): Tiered<T> {
  const R = TIER_RULES
  const n = rows.filter(isEligible).length
  const emptyReason =
    ctx.noModel ?? (n === 0 ? 'no stock passes the screen today (suspended, ST, new, illiquid or invalidated)' : null)
  const none: MainPick = { main: [], reasons: new Map(), left: new Map() }
  const normal = emptyReason ? none : pickMain(rows, ctx, R.mainSlots, false)
  const picked = emptyReason ? none : ctx.weak ? pickMain(rows, ctx, R.mainSlots, true) : normal
  const mainCodes = new Set(picked.main.map((r) => r.code))
  const kept = picked.main.filter((r) => ctx.previousMain.has(r.code)).length
  let weakDemoted = 0
  const out = rows.map((row) => {
    let tier: Tier
    let rule: string
    if (row.invalidated) {
      tier = 'reject'
      rule = `hard invalidation: ${row.invalidation ?? 'triggered'}`
    } else if (mainCodes.has(row.code)) {
      tier = 'main'
      rule = picked.reasons.get(row.code)!
    } else if (ctx.weak && normal.reasons.has(row.code)) {
      tier = 'observe'
      weakDemoted++
      const e = ctx.edges.get(row.code)!
      rule = `${WEAK_REGIME_RULE} no new entries today; expected excess ${pc(e.alpha)} covers its round trip ${pc(e.roundTrip)}: would enter on a normal day`
    } else if (picked.left.has(row.code)) {
      tier = row.score >= R.observePct ? 'observe' : 'reject'
      rule = picked.left.get(row.code)!
    } else if (row.score >= R.observePct) {
      tier = 'observe'
      rule = outsideRule(row, ctx, n, emptyReason)
    } else {
      tier = 'reject'
      rule = `score ${f1(row.score)} below observe ${R.observePct} (percentile among ${n} eligible)`
    }
    return { ...row, tier, tier_rule: rule }
  })
  const lowest = (list: readonly Untiered[]): number | null =>
    list.length === 0 ? null : Math.min(...list.map((r) => r.score))
  return {
    rows: out,
    cuts: {
      eligible: n,
      main: lowest(picked.main),
      mainNormal: lowest(normal.main),
      observe: R.observePct,
      weak: ctx.weak,
      kept,
      emptyReason,
    },
    weakDemoted,
  }
}
