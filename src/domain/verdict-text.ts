import type { FullRow, ReasonCode, TierRow } from './plan-types.js'
import { SCREEN_RULES } from './screening.js'

export interface VerdictTextInput {
  readonly decision: 'main' | 'observe' | 'reject' | 'absent'
  readonly reason: ReasonCode | null
  readonly card_rank: number | null
  readonly row:
    | (Pick<FullRow, 'rank' | 'score' | 'tier' | 'theme' | 'upside'> &
        Partial<Pick<TierRow, 'amount_ma20' | 'listed_days'>> & { logic_state?: string | null })
    | undefined
  readonly logicDays?: number | null
  readonly date?: string
  readonly sizes?: { top: number; obs_top: number; theme_cap: number }
}

const pct = (value: number): string => `${Math.round(value * 100)}%`

/** The one-line explanation of a verdict; the endpoint, the plan rows and the CLI all print this. */
export function verdictText(v: VerdictTextInput): string {
  const r = v.row
  if (v.decision === 'absent' || !r) return `absent: not in the tier table${v.date ? ` of ${v.date}` : ''}`
  const theme = r.theme ?? 'no theme'
  if (v.decision === 'main' || v.decision === 'observe') {
    const parts = [`${v.decision} #${v.card_rank ?? '?'}`, theme, `score ${r.score.toFixed(1)}`]
    if (r.logic_state) parts.push(`logic ${r.logic_state}${v.logicDays ? ` ${v.logicDays}d` : ''}`)
    if (r.upside !== null) parts.push(`upside ${pct(r.upside)}`)
    return parts.join(' · ')
  }
  const where = `${r.tier} tier #${r.rank}, score ${r.score.toFixed(1)}`
  const sizes = v.sizes ?? { top: 20, obs_top: 10, theme_cap: 5 }
  switch (v.reason) {
    case 'held':
      return `reject: held in the portfolio, dropped at screening (${where})`
    case 'b_share':
      return `reject: B share, priced in USD/HKD: the yuan liquidity and valuation rules do not apply (${where})`
    case 'suspended':
      return `reject: suspended on the data date (${where})`
    case 'st':
      return `reject: ST name, dropped at screening (${where})`
    case 'new_listing':
      return `reject: listed ${r.listed_days ?? '?'} trading days ago, fewer than ${SCREEN_RULES.minListedDays} (${where})`
    case 'illiquid':
      return `reject: 20-day mean amount ${((r.amount_ma20 ?? 0) / 1e6).toFixed(1)}m yuan below ${SCREEN_RULES.minAmountMa20 / 1e6}m (${where})`
    case 'theme_cap':
      return `reject: ${where}, theme ${theme} already has ${sizes.theme_cap} in main (theme_cap ${sizes.theme_cap})`
    case 'beyond_top':
      return `reject: ${where}, beyond top ${sizes.top} (main is full)`
    case 'beyond_obs_top':
      return `reject: ${where}, beyond obs_top ${sizes.obs_top} (observe is full)`
    default:
      return `reject: ${where}, below the observe threshold`
  }
}
