/**
 * The stock characteristics the demo's planted effects read (signal.ts), kept day by day as the closes are
 * stepped, each as known at the close of day t - 1 and computable from bars.csv, basics.csv and financials.csv:
 * - `reversal`: the last WINDOW bars' log return, sum of ln(close / pre_close) (pre_close is ex-rights, so a
 *   dividend is no loss);
 * - `max`: the largest of the last WINDOW daily returns close / pre_close - 1;
 * - `idio_vol`: the sd of the residuals of the last WINDOW daily returns regressed on the market's (each day's
 *   equal-weighted return of the stocks trading that day, suspended ones left out), n - 2 degrees of freedom;
 * - `abnormal_turnover`: mean volume of the last WINDOW bars over the mean of the last BASE_WINDOW (the share
 *   count is constant, so it is the turnover ratio);
 * - `size`: ln(close x total shares), basics.csv's total_mv;
 * - `value`: the earnings yield, TTM EPS of the latest report announced by t - 1 over close_t-1 (negative for
 *   loss-makers).
 * A suspended day is a bar (return 0, volume 0). A stock has a characteristic once it has the bars it needs
 * (WINDOW, BASE_WINDOW, one) and, for `value`, an announced report.
 */
import type { FinancialRow } from './fundamentals.js'
import type { Security } from './securities.js'

/** A month of trading days. */
export const WINDOW = 20
/** Abnormal turnover's base: about half a year (Liu, Stambaugh and Yuan use a year; the demo has 320 days). */
export const BASE_WINDOW = 120

export const CHARACTERISTICS = ['reversal', 'max', 'idio_vol', 'abnormal_turnover', 'size', 'value'] as const
export type Characteristic = (typeof CHARACTERISTICS)[number]

/** One characteristic across the stocks by index; `present[i]` 0 where stock i does not have it. */
export interface Column {
  readonly values: Float64Array
  readonly present: Uint8Array
}

export class StockHistory {
  readonly #securities: readonly Security[]
  readonly #reports: ReadonlyArray<readonly FinancialRow[]>
  readonly #calendar: readonly string[]
  readonly #totalShares: Float64Array
  /** Daily returns per stock, a ring of WINDOW indexed by day; the market's, the same ring. */
  readonly #returns: Float64Array
  readonly #market = new Float64Array(WINDOW)
  readonly #volumes: Float64Array
  readonly #lastClose: Float64Array
  readonly #reportAt: Int32Array
  #marketSum = 0
  #marketCount = 0
  readonly columns: Record<Characteristic, Column>

  constructor(
    securities: readonly Security[],
    totalShares: readonly number[],
    reports: ReadonlyArray<readonly FinancialRow[]>,
    calendar: readonly string[],
  ) {
    const n = securities.length
    this.#securities = securities
    this.#reports = reports
    this.#calendar = calendar
    this.#totalShares = Float64Array.from(totalShares)
    this.#returns = new Float64Array(n * WINDOW)
    this.#volumes = new Float64Array(n * BASE_WINDOW)
    this.#lastClose = new Float64Array(n)
    this.#reportAt = new Int32Array(n)
    const column = (): Column => ({ values: new Float64Array(n), present: new Uint8Array(n) })
    this.columns = Object.fromEntries(CHARACTERISTICS.map((c) => [c, column()])) as Record<Characteristic, Column>
  }

  /** Stock `index`'s bar of day t (prices in fen, volume in shares). */
  record(index: number, t: number, closeFen: number, preFen: number, volume: number, suspended: boolean): void {
    const r = closeFen / preFen - 1
    this.#returns[index * WINDOW + (t % WINDOW)] = r
    this.#volumes[index * BASE_WINDOW + (t % BASE_WINDOW)] = volume
    this.#lastClose[index] = closeFen
    if (!suspended) {
      this.#marketSum += r
      this.#marketCount++
    }
  }

  /** Closes day t: its market return is the mean of the returns recorded on it by stocks trading. */
  endDay(t: number): void {
    this.#market[t % WINDOW] = this.#marketCount > 0 ? this.#marketSum / this.#marketCount : 0
    this.#marketSum = 0
    this.#marketCount = 0
  }

  /** Fills `columns` with every stock's characteristics as known at the close of t - 1. */
  knownBefore(t: number): Record<Characteristic, Column> {
    const known = t > 0 ? this.#calendar[t - 1]! : ''
    const c = this.columns
    for (const s of this.#securities) {
      const i = s.index
      const bars = t - s.firstBar
      for (const name of CHARACTERISTICS) c[name].present[i] = 0
      if (bars < 1) continue
      const close = this.#lastClose[i]!
      c.size.values[i] = Math.log((close / 100) * this.#totalShares[i]!)
      c.size.present[i] = 1
      const list = this.#reports[i]!
      let at = this.#reportAt[i]!
      while (at + 1 < list.length && list[at + 1]!.annDate <= known) at++
      this.#reportAt[i] = at
      const report = list[at]
      if (report !== undefined && report.annDate <= known) {
        c.value.values[i] = (report.eps * 100) / close
        c.value.present[i] = 1
      }
      if (bars >= WINDOW) this.#windowed(i, t)
      if (bars >= BASE_WINDOW) {
        let recent = 0
        let base = 0
        for (let k = 1; k <= BASE_WINDOW; k++) {
          const v = this.#volumes[i * BASE_WINDOW + ((t - k) % BASE_WINDOW)]!
          base += v
          if (k <= WINDOW) recent += v
        }
        if (base > 0) {
          c.abnormal_turnover.values[i] = recent / WINDOW / (base / BASE_WINDOW)
          c.abnormal_turnover.present[i] = 1
        }
      }
    }
    return c
  }

  /** reversal, max and idio_vol of stock i from its last WINDOW returns (days t - WINDOW .. t - 1). */
  #windowed(i: number, t: number): void {
    const c = this.columns
    let logSum = 0
    let max = Number.NEGATIVE_INFINITY
    let sx = 0
    let sy = 0
    for (let k = 1; k <= WINDOW; k++) {
      const slot = (t - k) % WINDOW
      const r = this.#returns[i * WINDOW + slot]!
      logSum += Math.log1p(r)
      if (r > max) max = r
      sx += this.#market[slot]!
      sy += r
    }
    const mx = sx / WINDOW
    const my = sy / WINDOW
    let sxx = 0
    let sxy = 0
    let syy = 0
    for (let k = 1; k <= WINDOW; k++) {
      const slot = (t - k) % WINDOW
      const dx = this.#market[slot]! - mx
      const dy = this.#returns[i * WINDOW + slot]! - my
      sxx += dx * dx
      sxy += dx * dy
      syy += dy * dy
    }
    const residual = sxx > 0 ? Math.max(0, syy - (sxy * sxy) / sxx) : syy
    c.reversal.values[i] = logSum
    c.max.values[i] = max
    c.idio_vol.values[i] = Math.sqrt(residual / (WINDOW - 2))
    for (const name of ['reversal', 'max', 'idio_vol'] as const) c[name].present[i] = 1
  }
}
