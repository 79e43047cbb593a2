/**
 * Eight demo holdings: at least two hot-theme members with strong recent prices (so the plan visibly drops held
 * codes), the rest ordinary liquid names. Cost prices sit near the close of about a month ago.
 */
import { Random } from './random.js'

/** What the holdings pick needs to know about one stock once its bars exist. */
export interface StockOutcome {
  readonly index: number
  readonly code: string
  readonly eligible: boolean
  readonly hotWeight: number
  /** Return over the last 10 trading days. */
  readonly recentReturn: number
  /** Close about 20 trading days before the last date, in fen. */
  readonly monthAgoFen: number
}

export interface Holding {
  readonly code: string
  readonly qty: number
  readonly costFen: number
}

export const HOLDINGS = 8

export function pickHoldings(seed: number, outcomes: readonly StockOutcome[]): Holding[] {
  const rng = new Random(seed, 'holdings')
  const eligible = outcomes.filter((o) => o.eligible)
  const hot = eligible
    .filter((o) => o.hotWeight >= 0.5)
    .sort((a, b) => b.recentReturn - a.recentReturn || a.index - b.index)
  const strongHot = rng.sample(hot.slice(0, 8), 3)
  const taken = new Set(strongHot.map((o) => o.index))
  const rest = rng.sample(
    eligible.filter((o) => !taken.has(o.index)),
    HOLDINGS - strongHot.length,
  )
  let chosen = [...strongHot, ...rest]
  if (chosen.length < HOLDINGS) {
    const used = new Set(chosen.map((o) => o.index))
    chosen = [
      ...chosen,
      ...rng.sample(
        outcomes.filter((o) => !used.has(o.index)),
        HOLDINGS - chosen.length,
      ),
    ]
  }
  return chosen
    .sort((a, b) => a.index - b.index)
    .map((o) => ({
      code: o.code,
      qty: rng.int(1, 200) * 100,
      costFen: Math.max(1, Math.round(o.monthAgoFen * rng.float(0.9, 1.08))),
    }))
}
