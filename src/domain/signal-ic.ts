import { SIGNAL_NAMES, type SignalName, type SignalValues } from './signals.js'
import { averageRanks, pearson, spearman } from './track-stats.js'

/** A tier row's signals against its realised forward return (tradable rows only). */
export interface SignalOutcome {
  readonly signals: SignalValues
  readonly ret: number
}

/** Fewer stocks than this with a signal on a day give no IC for it (too noisy to learn from). */
export const MIN_IC_STOCKS = 30

/** One plan day's tradable rows as columns: each signal's values (NaN where a row lacks it), and the returns. */
export interface SignalOutcomeColumns {
  readonly signals: Readonly<Record<SignalName, Float64Array>>
  readonly ret: Float64Array
}

/** Rows as columns, in the same order; a signal a row lacks is NaN. */
export function outcomeColumns(rows: readonly SignalOutcome[]): SignalOutcomeColumns {
  const n = rows.length
  const signals = {} as Record<SignalName, Float64Array>
  for (const name of SIGNAL_NAMES) {
    const column = new Float64Array(n)
    for (let i = 0; i < n; i++) column[i] = rows[i]!.signals[name] ?? Number.NaN
    signals[name] = column
  }
  return { signals, ret: Float64Array.from(rows, (r) => r.ret) }
}

/** Each signal's rank IC of one plan day, over the tradable rows that have the signal (its value is not NaN). */
export function signalIcs({
  signals,
  ret,
}: SignalOutcomeColumns): Partial<Record<SignalName, { ic: number; n: number }>> {
  const out: Partial<Record<SignalName, { ic: number; n: number }>> = {}
  const n = ret.length
  // the returns are sorted once; a signal's rows rank them by walking that order (a sort per signal was half the cost)
  const returnRanks = ret.some(Number.isNaN) ? undefined : subsetRanker(ret)
  const xs = new Float64Array(n)
  const having = new Int32Array(n)
  for (const name of SIGNAL_NAMES) {
    const column = signals[name]
    let m = 0
    for (let i = 0; i < n; i++) {
      const value = column[i]!
      if (Number.isNaN(value)) continue
      xs[m] = value
      having[m++] = i
    }
    if (m < MIN_IC_STOCKS) continue
    const x = xs.subarray(0, m)
    const rowsHaving = having.subarray(0, m)
    const ic = returnRanks
      ? pearson(averageRanks(x), returnRanks(rowsHaving))
      : spearman(
          x,
          Array.from(rowsHaving, (i) => ret[i]!),
        )
    if (ic !== null && Number.isFinite(ic)) out[name] = { ic, n: m }
  }
  return out
}

/**
 * `averageRanks` of the values at some of the positions (ascending positions), from one sort of all of them: the
 * chosen ones keep their sorted order, and equal values share the mean of their ranks among the chosen.
 */
function subsetRanker(values: Float64Array): (positions: Int32Array) => Float64Array {
  const n = values.length
  const order = new Int32Array(n)
  for (let i = 0; i < n; i++) order[i] = i
  order.sort((a, b) => values[a]! - values[b]!)
  const chosen = new Uint8Array(n)
  const rankOf = new Float64Array(n)
  let every: Float64Array | undefined
  return (positions) => {
    if (positions.length === n) {
      every ??= averageRanks(values)
      return every
    }
    chosen.fill(0)
    for (const p of positions) chosen[p] = 1
    let rank = 0 // chosen values passed so far
    let k = 0
    while (k < n) {
      // one run of equal values in the sorted order: the chosen ones in it tie
      let end = k
      while (end + 1 < n && values[order[end + 1]!] === values[order[k]!]) end++
      let inRun = 0
      for (let j = k; j <= end; j++) inRun += chosen[order[j]!]!
      const shared = rank + (inRun + 1) / 2
      for (let j = k; j <= end; j++) if (chosen[order[j]!]) rankOf[order[j]!] = shared
      rank += inRun
      k = end + 1
    }
    const ranks = new Float64Array(positions.length)
    for (let i = 0; i < positions.length; i++) ranks[i] = rankOf[positions[i]!]!
    return ranks
  }
}
