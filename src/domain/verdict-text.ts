import type { FullRow, ReasonCode, ScoreComponents, TierRow, TradeFlag } from './plan-types.js'
import { SCREEN_RULES } from './screening.js'
import { SIGNAL_NAMES } from './signals.js'
import { methodLabel } from './valuation.js'

export interface VerdictTextInput {
  readonly decision: 'main' | 'observe' | 'reject' | 'absent'
  readonly reason: ReasonCode | null
  readonly card_rank: number | null
  readonly row:
    | (Pick<FullRow, 'rank' | 'score' | 'tier' | 'theme' | 'upside'> &
        Partial<
          Pick<TierRow, 'amount_ma20' | 'listed_days' | 'components' | 'flags' | 'valuation_method' | 'tier_rule'>
        > & {
          logic_state?: string | null
          logic_rule?: string | null
        })
    | undefined
  readonly logicDays?: number | null
  readonly date?: string
  readonly sizes?: { top: number; obs_top: number; theme_cap: number }
}

const pct = (value: number): string => `${Math.round(value * 100)}%`

/** How many components a verdict names. */
export const DRIVER_COUNT = 3

/** Rows built before PLAN_VERSION 2 have no stored points (all 0): name no components for them. */
function hasPoints(c: ScoreComponents | undefined): c is ScoreComponents {
  return c !== undefined && Object.values(c).some((v) => v !== 0)
}

/** PLAN_VERSION 2's six components and their maxima (rows built before the signals). */
const LEGACY_POINTS: Readonly<Record<string, number>> = {
  momentum: 15,
  trend: 10,
  heat: 35,
  upside: 20,
  liquidity: 10,
  quality: 10,
}
const isLegacy = (c: ScoreComponents): boolean =>
  Object.keys(c).length === Object.keys(LEGACY_POINTS).length && Object.keys(c).every((k) => k in LEGACY_POINTS)

/** Ranks parts by points; a PLAN_VERSION 2 row by distance above half its maximum, as it was explained then. */
function ranked(c: ScoreComponents): Array<[string, number]> {
  const key = (name: string, points: number) => (isLegacy(c) ? points - LEGACY_POINTS[name]! / 2 : points)
  return Object.entries(c).sort((a, b) => key(b[0], b[1]) - key(a[0], a[1]) || (a[0] < b[0] ? -1 : 1))
}

function named(c: ScoreComponents): (entry: [string, number]) => string {
  return ([name, points]) => `${name} ${points.toFixed(1)}${isLegacy(c) ? `/${LEGACY_POINTS[name]}` : ''}`
}

/** The signals that gave the score most of its points, e.g. `reversal_5d 14.2`. */
export function scoreDrivers(c: ScoreComponents | undefined, count = DRIVER_COUNT): string[] {
  return hasPoints(c) ? ranked(c).slice(0, count).map(named(c)) : []
}

/** The signals that gave the least: what held a rejected score back. */
export function scoreLaggards(c: ScoreComponents | undefined, count = DRIVER_COUNT): string[] {
  return hasPoints(c) ? ranked(c).reverse().slice(0, count).map(named(c)) : []
}

/** PLAN_VERSION 3 rows: the signals the stock had no data for that day (none named for older rows). */
export function unavailableSignals(c: ScoreComponents | undefined): string[] {
  if (!c || Object.keys(c).length === 0 || isLegacy(c)) return []
  return SIGNAL_NAMES.filter((name) => !(name in c))
}

function unavailableText(c: ScoreComponents | undefined): string {
  const missing = unavailableSignals(c)
  return missing.length === 0 ? '' : `; no data: ${missing.join(', ')}`
}

const FLAG_TEXT: Record<TradeFlag, string> = {
  limit_up_close: 'closed limit-up on T',
  one_word_board: 'one-word board',
  st: 'ST',
  new_listing: 'new listing',
}

function scoreText(r: NonNullable<VerdictTextInput['row']>): string {
  const drivers = scoreDrivers(r.components)
  return `score ${r.score.toFixed(1)}${drivers.length > 0 ? ` (${drivers.join(', ')}${unavailableText(r.components)})` : ''}`
}

function heldBackText(r: NonNullable<VerdictTextInput['row']>): string {
  const laggards = scoreLaggards(r.components)
  return `score ${r.score.toFixed(1)}${laggards.length > 0 ? ` (held back by ${laggards.join(', ')}${unavailableText(r.components)})` : ''}`
}

function flagText(flags: readonly TradeFlag[] | undefined): string | null {
  return flags && flags.length > 0 ? `⚠ ${flags.map((f) => FLAG_TEXT[f]).join(', ')}` : null
}

/** `logic broken 3d (loss in 2026Q3)`: a broken or weakening state says why. */
function logicText(state: string, days: number | null | undefined, rule: string | null | undefined): string {
  const base = `logic ${state}${days ? ` ${days}d` : ''}`
  if ((state !== 'broken' && state !== 'weakening') || !rule) return base
  const colon = rule.indexOf(': ')
  return `${base} (${colon >= 0 ? rule.slice(colon + 2) : rule})`
}

/** The one-line explanation of a verdict; the endpoint, the plan rows and the CLI all print this. */
export function verdictText(v: VerdictTextInput): string {
  const r = v.row
  if (v.decision === 'absent' || !r) return `absent: not in the tier table${v.date ? ` of ${v.date}` : ''}`
  const theme = r.theme ?? 'no theme'
  if (v.decision === 'main' || v.decision === 'observe') {
    const parts = [`${v.decision} #${v.card_rank ?? '?'}`, theme, scoreText(r)]
    if (r.logic_state) parts.push(logicText(r.logic_state, v.logicDays, r.logic_rule))
    if (r.upside !== null) parts.push(`upside ${pct(r.upside)} (${methodLabel(r.valuation_method ?? null)})`)
    const flags = flagText(r.flags)
    if (flags) parts.push(flags)
    return parts.join(' · ')
  }
  const flags = flagText(r.flags)
  // screening reasons speak for themselves; a selection reason also names what drove the score
  const plain = `${r.tier} tier #${r.rank}, score ${r.score.toFixed(1)}`
  const where = `${r.tier} tier #${r.rank}, ${scoreText(r)}${flags ? `, ${flags}` : ''}`
  const sizes = v.sizes ?? { top: 20, obs_top: 10, theme_cap: 5 }
  switch (v.reason) {
    case 'held':
      return `reject: held in the portfolio, dropped at screening (${plain})`
    case 'b_share':
      return `reject: B share, priced in USD/HKD: the yuan liquidity and valuation rules do not apply (${plain})`
    case 'suspended':
      return `reject: suspended on the data date (${plain})`
    case 'st':
      return `reject: ST name, dropped at screening (${plain})`
    case 'new_listing':
      return `reject: listed ${r.listed_days ?? '?'} trading days ago, fewer than ${SCREEN_RULES.minListedDays} (${plain})`
    case 'illiquid':
      return `reject: 20-day mean amount ${((r.amount_ma20 ?? 0) / 1e6).toFixed(1)}m yuan below ${SCREEN_RULES.minAmountMa20 / 1e6}m (${plain})`
    case 'theme_cap':
      return `reject: ${where}, theme ${theme} already has ${sizes.theme_cap} in main (theme_cap ${sizes.theme_cap})`
    case 'beyond_top':
      return `reject: ${where}, beyond top ${sizes.top} (main is full)`
    case 'beyond_obs_top':
      return `reject: ${where}, beyond obs_top ${sizes.obs_top} (observe is full)`
    default:
      return `reject: ${r.tier} tier #${r.rank}, ${heldBackText(r)}${flags ? `, ${flags}` : ''}; ${r.tier_rule ?? 'below the observe threshold'}`
  }
}
