import { SIGNAL_NAMES, type SignalName, type SignalValues } from './signals.js'
import { averageRanks, pearson, spearman } from './track-stats.js'

/** A tier row's signals against its realised forward return (tradable rows only). */
export interface SignalOutcome {
  readonly signals: SignalValues
  readonly ret: number
}

/** Fewer stocks than this with a signal on a day give no IC for it (too noisy to learn from). */
export const MIN_IC_STOCKS = 30

/** Each signal's rank IC of one plan day, over the tradable rows that have the signal. */
export function signalIcs(rows: readonly SignalOutcome[]): Partial<Record<SignalName, { ic: number; n: number }>> {
  const out: Partial<Record<SignalName, { ic: number; n: number }>> = {}
  // the returns' ranks over every row, shared by the signals every row has (most of them, most days)
  let everyRowRetRanks: Float64Array | undefined
  for (const name of SIGNAL_NAMES) {
    const xs: number[] = []
    const ys: number[] = []
    for (const row of rows) {
      const value = row.signals[name]
      if (value === undefined) continue
      xs.push(value)
      ys.push(row.ret)
    }
    if (xs.length < MIN_IC_STOCKS) continue
    let ic: number | null
    if (xs.length === rows.length) {
      everyRowRetRanks ??= averageRanks(ys)
      ic = pearson(averageRanks(xs), everyRowRetRanks)
    } else ic = spearman(xs, ys)
    if (ic !== null && Number.isFinite(ic)) out[name] = { ic, n: xs.length }
  }
  return out
}
