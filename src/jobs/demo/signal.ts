/**
 * The planted effects of the demo market (issue 50): the cross-sectional effects published A-share studies
 * document, each at the size they report, so that a track record on the demo reads as one on real data would.
 * They are written from the studies, not from the plan's score; docs/score.md "The demo market's planted signal"
 * cites them.
 *
 * Stock i's expected return on day t is `signal x g_i,t`, g = sum over the effects of perDay(e) x z_e,i,t, with
 * z_e the cross-sectional z-score of characteristic e (characteristics.ts) over the stocks that have it, as known
 * at the close of t - 1, clipped to +-3; a stock without it has z = 0.
 *
 * An effect's size is the monthly return spread between the top and bottom deciles of its characteristic. A
 * daily alpha of a per unit of z gives a decile sort `a x 21 x DECILE_Z x persistence` a month, where
 * `persistence` is the share of the month a sort made on its first day still holds: about 1/2 for a
 * characteristic of the last 20 days (it is renewed over the month), 1 for one that barely moves (size, value,
 * a stock's volatility).
 * With `signal = 0` g is 0 and the generator also drops the hot-theme drift and the IPO pop (prices.ts).
 */
import { CHARACTERISTICS, type Characteristic, type Column, StockHistory } from './characteristics.js'
import type { FinancialRow } from './fundamentals.js'
import type { Security } from './securities.js'

export interface Effect {
  /** Top-minus-bottom decile return a month, as the studies report it (negative: a high value earns less). */
  readonly monthlySpread: number
  readonly persistence: number
}

export const EFFECTS: Readonly<Record<Characteristic, Effect>> = {
  reversal: { monthlySpread: -0.015, persistence: 0.5 },
  max: { monthlySpread: -0.01, persistence: 0.5 },
  idio_vol: { monthlySpread: -0.01, persistence: 1 },
  abnormal_turnover: { monthlySpread: -0.01, persistence: 0.5 },
  size: { monthlySpread: -0.01, persistence: 1 },
  value: { monthlySpread: 0.01, persistence: 1 },
}

/** Top-minus-bottom decile means of a standard normal: 2 x phi(1.2816) / 0.1. */
export const DECILE_Z = 3.51
export const MONTH_DAYS = 21
const CLIP = 3

/** An effect's daily alpha per unit of z, at `signal = 1`. */
export function perDay(e: Effect): number {
  return e.monthlySpread / (MONTH_DAYS * DECILE_Z * e.persistence)
}

/** Cross-sectional z-scores of the present values, clipped, into `out`; absent entries become 0. */
export function zScores(column: Column, out: Float64Array): void {
  const { values, present } = column
  let n = 0
  let sum = 0
  for (let i = 0; i < values.length; i++) {
    if (!present[i]) continue
    n++
    sum += values[i]!
  }
  if (n < 2) {
    out.fill(0)
    return
  }
  const mean = sum / n
  let ss = 0
  for (let i = 0; i < values.length; i++) if (present[i]) ss += (values[i]! - mean) ** 2
  const sd = Math.sqrt(ss / (n - 1)) || 1
  for (let i = 0; i < values.length; i++)
    out[i] = present[i] ? Math.max(-CLIP, Math.min(CLIP, (values[i]! - mean) / sd)) : 0
}

/**
 * The planted effects day by day: `next(t)` gives every stock's g_t from what was `record`ed up to t - 1, then the
 * price loop records each listed stock's bar of t and ends the day. Days are stepped in order from 0.
 */
export class PlantedFactor {
  readonly #history: StockHistory
  readonly #z: Float64Array
  readonly #g: Float64Array

  constructor(
    securities: readonly Security[],
    totalShares: readonly number[],
    reports: ReadonlyArray<readonly FinancialRow[]>,
    calendar: readonly string[],
  ) {
    this.#history = new StockHistory(securities, totalShares, reports, calendar)
    this.#z = new Float64Array(securities.length)
    this.#g = new Float64Array(securities.length)
  }

  /** g_i,t for every stock index (0 for a stock not listed before t); valid until the next call. */
  next(t: number): Float64Array {
    const columns = this.#history.knownBefore(t)
    this.#g.fill(0)
    for (const name of CHARACTERISTICS) {
      zScores(columns[name], this.#z)
      const a = perDay(EFFECTS[name])
      for (let i = 0; i < this.#g.length; i++) this.#g[i] = this.#g[i]! + a * this.#z[i]!
    }
    return this.#g
  }

  /** Stock `index`'s bar of day t: close and pre-close in fen, volume in shares. */
  record(index: number, t: number, closeFen: number, preFen: number, volume: number, suspended: boolean): void {
    this.#history.record(index, t, closeFen, preFen, volume, suspended)
  }

  endDay(t: number): void {
    this.#history.endDay(t)
  }
}
