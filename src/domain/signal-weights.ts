/**
 * Signal weights. PLAN_VERSION 4 uses them fixed (`WEIGHT_RULES.learn` off: each weight is its prior). When learning
 * (PLAN_VERSION 3), at build date T each signal's weight, sign included, is its mean daily rank IC against realised
 * forward returns of earlier plan days whose exit was strictly before T (the plan's
 * own outcomes), over a trailing window, shrunk toward a prior from the A-share literature. Nothing after T is
 * read: the history handed in is filtered here by exit date, so a caller cannot leak a later outcome.
 *
 * Strictly before T, not on T: the chain builds T before its outcomes step writes the ICs whose exit is T, so
 * a rule that read them would give the first build of T fewer days than a rebuild or a replay run afterwards.
 * With the exit before T, every build of T reads the same ICs whichever order the steps ran in.
 */
import { SIGNAL_NAMES, type SignalName } from './signals.js'
import { roundTo } from './stats.js'

/**
 * The score's weights (PLAN_VERSION 5 and 6; issue 38, issue 47): equal weights on seven signals, signs from the A-share
 * literature, aimed at what the top of the investable names earns rather than at a rank IC over every name.
 * - Lottery and attention are overpriced (avoid them): a high largest daily return (Bali, Cakici and Whitelaw 2011;
 *   strong in China), a high abnormal turnover, an erratic traded value, a drift from open to close and price
 *   moving with traded value (the retail-attention signals of the A-share broker literature).
 * - What has fallen is cheap (hold it): one-month reversal and distance below the 120-day high. Low traded value
 *   (`liquidity`, PLAN_VERSION 4) is out since version 5: it was the size premium, and what the book pays to trade
 *   small names now decides entry (`expected-edge.ts`).
 * A walk-forward IC learner over all names was tried against this (docs/research-log.md): it learns what separates
 * the bottom of the market from the rest, and its top-20 book did not beat the investable universe. The other
 * signals keep weight 0: measured every day (their ICs are stored) but not in the score.
 */
export const SIGNAL_PRIOR: Readonly<Record<SignalName, number>> = Object.freeze({
  reversal_5d: 0,
  reversal_20d: 0.03,
  momentum_6m_skip_1m: 0,
  turnover: 0,
  abnormal_turnover: -0.03,
  volatility: 0,
  idio_volatility: 0,
  size: 0,
  value_ep: 0,
  value_bp: 0,
  quality_roe: 0,
  cash_conversion: 0,
  heat: 0,
  trend: 0,
  liquidity: 0,
  upside: 0,
  max_return: -0.03,
  intraday_return: -0.03,
  amount_volatility: -0.03,
  price_volume_corr: -0.03,
  high_distance: -0.03,
})

export interface WeightRules {
  readonly horizon: number
  readonly windowDays: number
  readonly minDays: number
  readonly priorDays: number
  readonly learn: boolean
}

export const WEIGHT_RULES: WeightRules = Object.freeze({
  /** The forward-return horizon the weights learn from, in trading days. */
  horizon: 5,
  /** Plan days of IC history a weight reads at most (the newest first). */
  windowDays: 120,
  /** Days of IC history before a weight moves off its prior. */
  minDays: 20,
  /** The prior counts as this many days of IC history (shrinkage). */
  priorDays: 40,
  /**
   * Whether weights move off the prior toward the measured ICs. Off since PLAN_VERSION 4: learned on all names,
   * the weights favoured what keeps a stock out of the bottom, not what puts it at the top (docs/research-log.md).
   */
  learn: false,
})

/** One plan day's signal ICs: the day, the day its h-day exit was realised, and each signal's rank IC. */
export interface SignalIcDay {
  readonly date: string
  readonly exitDate: string
  readonly ic: Readonly<Partial<Record<SignalName, number>>>
}

export interface SignalWeight {
  readonly weight: number
  readonly prior: number
  /** Mean IC over the days read, null when there were none. */
  readonly icMean: number | null
  readonly days: number
}

export type SignalWeights = Readonly<Record<SignalName, SignalWeight>>

/** The weights a build on `asOf` uses: only plan days whose exit is before `asOf` are read. */
export function learnWeights(
  history: readonly SignalIcDay[],
  asOf: string,
  rules: WeightRules = WEIGHT_RULES,
): SignalWeights {
  const known = history
    .filter((d) => d.exitDate < asOf)
    .sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : 0))
    .slice(0, rules.windowDays)
  const out = {} as Record<SignalName, SignalWeight>
  for (const name of SIGNAL_NAMES) {
    const ics = known.map((d) => d.ic[name]).filter((v): v is number => v !== undefined && Number.isFinite(v))
    const prior = SIGNAL_PRIOR[name]
    const days = ics.length
    const icMean = days === 0 ? null : ics.reduce((a, b) => a + b, 0) / days
    const weight =
      icMean === null || days < rules.minDays || !rules.learn
        ? prior
        : (days * icMean + rules.priorDays * prior) / (days + rules.priorDays)
    out[name] = { weight: roundTo(weight, 6), prior, icMean: icMean === null ? null : roundTo(icMean, 6), days }
  }
  return out
}
