/**
 * One plan day of the track record reduced to what the whole record needs from it (issue 28): its rank ICs, score
 * quintile means, untradable counts, per-group tallies of the return and its tradable `main` names. The record
 * over many days is then a pass over these (`assembleTrackRecord`), not over every row again. Pure.
 */
import { averageRanks, pearson, spearman } from './track-stats.js'

export interface EvalRow {
  readonly code: string
  readonly score: number
  readonly components: Readonly<Record<string, number | null>>
  readonly decision: string | null
  readonly logicState: string | null
  readonly theme: string | null
  readonly tradable: boolean
  readonly reason: string | null
  readonly ret: number | null
}

export interface EvalDay {
  readonly date: string
  readonly exitDate: string
  readonly regime: string | null
  /** The benchmark's return over the day's window (T+1 open to T+h close), null without index bars. */
  readonly benchRet: number | null
  readonly rows: readonly EvalRow[]
}

/** Count, mean and sum of squared deviations (Welford) of the returns of one group on one day; hits: ret > bench. */
export interface Tally {
  readonly n: number
  readonly mean: number
  readonly m2: number
  readonly hits: number
}

export interface DayStats {
  readonly date: string
  readonly exitDate: string
  readonly regime: string | null
  /** The benchmark return the tallies' hits were counted against; null: no hits (the day is left out of groups). */
  readonly benchRet: number | null
  /** Outcome rows with a tier row, tradable or not. */
  readonly rows: number
  readonly untradable: Record<string, number>
  readonly ic: { readonly score: number | null; readonly components: Record<string, number | null> }
  /** Mean return of each score quintile, lowest first; null under 5 tradable rows. */
  readonly quintiles: number[] | null
  /** Tallies of the tradable rows: all of them (the day's regime group) and by decision, logic state and theme. */
  readonly tallies: {
    readonly all: Tally | null
    readonly decision: Record<string, Tally>
    readonly logic_state: Record<string, Tally>
    readonly theme: Record<string, Tally>
  }
  /** The tradable `main` names and their returns, in score order (ties by code). */
  readonly main: Array<{ readonly code: string; readonly ret: number }>
}

/** The key of rows without a value in a group table. */
export const NO_KEY = '(none)'

/** The day's rows with a return, in the order given (code order from storage); a new array. */
function tradableRows(day: EvalDay): EvalRow[] {
  return day.rows.filter((r) => r.tradable && r.ret !== null)
}

function column(rows: readonly EvalRow[], value: (row: EvalRow) => number): Float64Array {
  const out = new Float64Array(rows.length)
  for (let i = 0; i < rows.length; i++) out[i] = value(rows[i]!)
  return out
}

function dayIcs(rows: readonly EvalRow[], components: readonly string[]): DayStats['ic'] {
  const n = rows.length
  const retRanks = averageRanks(column(rows, (r) => r.ret!))
  const ic = (values: Float64Array) => (n < 3 ? null : pearson(averageRanks(values), retRanks))
  const out: Record<string, number | null> = {}
  for (const name of components) {
    const present = rows.filter((r) => r.components[name] !== null && r.components[name] !== undefined)
    out[name] =
      present.length === n
        ? ic(column(rows, (r) => r.components[name]!))
        : spearman(
            column(present, (r) => r.components[name]!),
            column(present, (r) => r.ret!),
          )
  }
  return { score: ic(column(rows, (r) => r.score)), components: out }
}

/** Rank-based buckets over the rows in score order. */
function quintileMeans(rows: readonly EvalRow[]): number[] | null {
  const n = rows.length
  if (n < 5) return null
  const sums = [0, 0, 0, 0, 0]
  const counts = [0, 0, 0, 0, 0]
  rows.forEach((r, i) => {
    const q = Math.min(4, Math.floor((i * 5) / n))
    sums[q]! += r.ret!
    counts[q]!++
  })
  return sums.map((s, q) => s / counts[q]!)
}

interface MutableTally {
  n: number
  mean: number
  m2: number
  hits: number
}

function add(tally: MutableTally, ret: number, benchRet: number | null): void {
  tally.n++
  const delta = ret - tally.mean
  tally.mean += delta / tally.n
  tally.m2 += delta * (ret - tally.mean)
  if (benchRet !== null && ret - benchRet > 0) tally.hits++
}

function tallyBy(rows: readonly EvalRow[], keyOf: (row: EvalRow) => string | null, benchRet: number | null) {
  const out: Record<string, MutableTally> = {}
  for (const row of rows) {
    const key = keyOf(row) ?? NO_KEY
    const tally = out[key] ?? { n: 0, mean: 0, m2: 0, hits: 0 }
    out[key] = tally
    add(tally, row.ret!, benchRet)
  }
  return out
}

/** The day's figures; `components` get their own rank IC (the score always does). */
export function summariseDay(day: EvalDay, components: readonly string[]): DayStats {
  const tradable = tradableRows(day)
  const ic = dayIcs(tradable, components)
  // the rest in score order, ties by code: the order the row-by-row evaluator summed in (its sums match to the bit)
  const byScore = tradable.sort((a, b) => a.score - b.score || (a.code < b.code ? -1 : 1))
  const untradable: Record<string, number> = {}
  for (const row of day.rows) {
    if (!row.tradable) untradable[row.reason ?? 'unknown'] = (untradable[row.reason ?? 'unknown'] ?? 0) + 1
  }
  const all = tallyBy(byScore, () => NO_KEY, day.benchRet)[NO_KEY] ?? null
  return {
    date: day.date,
    exitDate: day.exitDate,
    regime: day.regime,
    benchRet: day.benchRet,
    rows: day.rows.length,
    untradable,
    ic,
    quintiles: quintileMeans(byScore),
    tallies: {
      all,
      decision: tallyBy(byScore, (r) => r.decision, day.benchRet),
      logic_state: tallyBy(byScore, (r) => r.logicState, day.benchRet),
      theme: tallyBy(byScore, (r) => r.theme, day.benchRet),
    },
    main: byScore.filter((r) => r.decision === 'main').map((r) => ({ code: r.code, ret: r.ret! })),
  }
}
