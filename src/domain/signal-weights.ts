/**
 * Walk-forward signal weights (PLAN_VERSION 3). At build date T each signal's weight, sign included, is its mean
 * daily rank IC against realised forward returns of earlier plan days whose exit was strictly before T (the plan's
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
 * The prior: the rank IC at a one-week horizon each signal is expected to have before the plan has a record of
 * its own. Signs and rough sizes from the A-share factor literature (Liu, Stambaugh and Yuan, "Size and value in
 * China", JFE 2019, and the work that follows it): one-week and one-month reversal, low turnover and abnormal
 * turnover, low (idiosyncratic) volatility, small size and value pay; medium-term momentum is weak in China (0);
 * quality, heat, trend and upside get small or no priors because the evidence at a week is thin.
 */
export const SIGNAL_PRIOR: Readonly<Record<SignalName, number>> = Object.freeze({
  reversal_5d: 0.03,
  reversal_20d: 0.02,
  momentum_6m_skip_1m: 0,
  turnover: -0.03,
  abnormal_turnover: -0.03,
  volatility: -0.02,
  idio_volatility: -0.02,
  size: -0.02,
  value_ep: 0.02,
  value_bp: 0.01,
  quality_roe: 0.01,
  cash_conversion: 0.005,
  heat: 0.005,
  trend: 0,
  liquidity: -0.01,
  upside: 0.005,
})

export const WEIGHT_RULES = Object.freeze({
  /** The forward-return horizon the weights learn from, in trading days. */
  horizon: 5,
  /** Plan days of IC history a weight reads at most (the newest first). */
  windowDays: 120,
  /** Days of IC history before a weight moves off its prior. */
  minDays: 20,
  /** The prior counts as this many days of IC history (shrinkage). */
  priorDays: 40,
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
export function learnWeights(history: readonly SignalIcDay[], asOf: string, rules = WEIGHT_RULES): SignalWeights {
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
      icMean === null || days < rules.minDays
        ? prior
        : (days * icMean + rules.priorDays * prior) / (days + rules.priorDays)
    out[name] = { weight: roundTo(weight, 6), prior, icMean: icMean === null ? null : roundTo(icMean, 6), days }
  }
  return out
}
