/**
 * Forward outcomes of a published plan (issue 10). The plan of data date T is for the next session, so a code is
 * bought at the open of T+1 and sold at the close of T+h, both back-adjusted by the day's adjust factor:
 *
 *   ret = close(T+h) x adj(T+h) / (open(T+1) x adj(T+1)) - 1
 *
 * A code that could not be bought at T+1 (no bar or suspended; or it opened at the limit-up price, so a buy order
 * would not fill) is kept with `tradable = false` and its reason, and has no return. The benchmark is held over
 * the same window (index open T+1 to close T+h); the universe average is the mean return of the day's tradable
 * codes. Nothing here reads a bar after T+h, so an outcome cannot change when later data arrives.
 */
/** Why a published code could not be bought (or sold) over the window. */
export type UntradableReason = 'suspended' | 'limit_up_open' | 'no_exit_price'

export const HORIZONS = [1, 5, 20] as const
export const DEFAULT_BENCHMARK = '000300.SH'

export interface EntryBar {
  readonly open: number
  readonly adjFactor: number
  readonly suspended: boolean
  /** The day's limit-up price, or null when the code has no limit that day. */
  readonly limitUp: number | null
}

export interface ExitBar {
  readonly close: number
  readonly adjFactor: number
}

export interface OutcomeInput {
  readonly date: string
  readonly horizon: number
  readonly entryDate: string
  readonly exitDate: string
  /** The codes of T's tier table. */
  readonly codes: readonly string[]
  readonly entry: ReadonlyMap<string, EntryBar>
  readonly exit: ReadonlyMap<string, ExitBar>
  readonly benchmark: string
  /** The benchmark's open on T+1 and close on T+h, or null when it has no bars there. */
  readonly benchmarkWindow: { readonly open: number; readonly close: number } | null
  readonly regime: string | null
}

export interface Outcome {
  readonly trade_date: string
  readonly horizon: number
  readonly code: string
  readonly entry_date: string
  readonly exit_date: string
  readonly tradable: boolean
  readonly reason: UntradableReason | null
  readonly ret: number | null
  readonly benchmark: string
  readonly bench_ret: number | null
  readonly universe_ret: number | null
  readonly excess: number | null
  readonly regime: string | null
}

/** The limit-up price as the exchanges round it: pre_close x (1 + ratio) to the fen. */
export function limitUpPrice(preClose: number, ratio: number): number {
  return Math.round(preClose * (1 + ratio) * 100 + 1e-9) / 100
}

/** The limit-down price as the exchanges round it: pre_close x (1 - ratio) to the fen. */
export function limitDownPrice(preClose: number, ratio: number): number {
  return Math.round(preClose * (1 - ratio) * 100 + 1e-9) / 100
}

/** Why a code could not be bought at the open of T+1, or null when it could. */
export function untradableReason(bar: EntryBar | undefined): UntradableReason | null {
  if (!bar || bar.suspended) return 'suspended'
  if (bar.limitUp !== null && bar.open >= bar.limitUp - 1e-9) return 'limit_up_open'
  return null
}

export function computeOutcomes(input: OutcomeInput): Outcome[] {
  const w = input.benchmarkWindow
  const benchRet = w && w.open > 0 ? w.close / w.open - 1 : null
  const rets = new Map<string, number>()
  const reasons = new Map<string, UntradableReason>()
  for (const code of input.codes) {
    const entry = input.entry.get(code)
    const reason = untradableReason(entry)
    const exit = input.exit.get(code)
    if (reason) reasons.set(code, reason)
    else if (!exit) reasons.set(code, 'no_exit_price')
    else rets.set(code, (exit.close * exit.adjFactor) / (entry!.open * entry!.adjFactor) - 1)
  }
  let sum = 0
  for (const r of rets.values()) sum += r
  const universe = rets.size > 0 ? sum / rets.size : null
  return input.codes.map((code) => {
    const ret = rets.get(code) ?? null
    return {
      trade_date: input.date,
      horizon: input.horizon,
      code,
      entry_date: input.entryDate,
      exit_date: input.exitDate,
      tradable: ret !== null,
      reason: reasons.get(code) ?? null,
      ret,
      benchmark: input.benchmark,
      bench_ret: benchRet,
      universe_ret: universe,
      excess: ret !== null && benchRet !== null ? ret - benchRet : null,
      regime: input.regime,
    }
  })
}

/** The (T+1, T+h) window of plan date T on the trading calendar, or undefined while T+h has not happened. */
export function outcomeWindow(
  calendar: readonly string[],
  date: string,
  horizon: number,
): { entryDate: string; exitDate: string } | undefined {
  const i = calendar.indexOf(date)
  if (i < 0 || i + horizon >= calendar.length) return undefined
  return { entryDate: calendar[i + 1]!, exitDate: calendar[i + horizon]! }
}
