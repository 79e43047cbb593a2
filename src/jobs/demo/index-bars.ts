/** The CSI 300 (`000300.SH`) bars, built from the market's equal-weighted average daily return. */
import { Random } from './random.js'

export const INDEX_CODE = '000300.SH'

/** Daily sums over the stocks that traded (not suspended), filled while the stock bars are generated. */
export class MarketTally {
  readonly returns: Float64Array
  readonly openGaps: Float64Array
  readonly traded: Float64Array
  readonly volume: Float64Array
  readonly amount: Float64Array

  constructor(days: number) {
    this.returns = new Float64Array(days)
    this.openGaps = new Float64Array(days)
    this.traded = new Float64Array(days)
    this.volume = new Float64Array(days)
    this.amount = new Float64Array(days)
  }

  add(t: number, pre: number, open: number, close: number, volume: number, amount: number): void {
    this.returns[t] = this.returns[t]! + close / pre - 1
    this.openGaps[t] = this.openGaps[t]! + open / pre - 1
    this.traded[t] = this.traded[t]! + 1
    this.volume[t] = this.volume[t]! + volume
    this.amount[t] = this.amount[t]! + amount
  }
}

export interface IndexBar {
  readonly open: number
  readonly high: number
  readonly low: number
  readonly close: number
  readonly pre: number
  readonly volume: number
  readonly amount: number
}

/** Index bars in fen, starting near 3900 points. */
export function indexBars(seed: number, tally: MarketTally): IndexBar[] {
  const rng = new Random(seed, 'index')
  const out: IndexBar[] = []
  let pre = Math.round(390_000 * (1 + rng.float(-0.01, 0.01)))
  for (let t = 0; t < tally.returns.length; t++) {
    const n = tally.traded[t]!
    const ret = n > 0 ? tally.returns[t]! / n : 0
    const gap = n > 0 ? tally.openGaps[t]! / n : 0
    const close = Math.round(pre * (1 + ret))
    const open = Math.round(pre * (1 + gap))
    const high = Math.round(Math.max(open, close) * (1 + Math.abs(rng.normal(0, 0.003))))
    const low = Math.round(Math.min(open, close) * (1 - Math.abs(rng.normal(0, 0.003))))
    out.push({ open, high, low, close, pre, volume: tally.volume[t]!, amount: tally.amount[t]! })
    pre = close
  }
  return out
}
