/**
 * What the main book's report needs of one plan day T beyond its own names' bars (issues 38, 47): the return on the
 * next trading day D of the universe investable on T, measured as the book's day (`book-universe.ts`), with its size
 * and reversal factor legs and the traded-value-matched return of T's `main`; and how that `main` (the names the
 * book targets on D) sits in the universe: each exposure's mean cross-sectional z-score of the names, and the
 * industry counts of the names and of the universe. Pure: the caller reads the investable rows.
 */
import { atLimitUp } from './book.js'
import { type UniverseName, universeDay } from './book-universe.js'

/** Size proxy (log 20-day mean traded value), 60-day beta to the benchmark, 20-day volatility, 5-day return. */
export const EXPOSURES = ['size', 'beta', 'volatility', 'reversal'] as const
export type ExposureName = (typeof EXPOSURES)[number]

/** An investable code of T (`isEligible`) with what its exposures and its day D in the universe need. */
export interface InvestableRow extends UniverseName {
  readonly industry: string | null
  readonly beta: number | null
  readonly volatility: number | null
  readonly reversal: number | null
}

/** Trading days of bars before a plan day that its exposures read: 60 returns need 61 closes. */
export const EXPOSURE_LOOK_BACK = 61

/** Back-adjusted closes on a calendar: `px[k]` is the close × adj on calendar day k, NaN where it did not trade. */
export type AlignedCloses = Float64Array

const sampleSdOf = (xs: readonly number[]): number => {
  const m = xs.reduce((a, b) => a + b, 0) / xs.length
  return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1))
}

/**
 * An investable code's figures on calendar day `t` from its traded closes of days t − 61 .. t: 20-day volatility
 * (10 returns at least), 60-day beta to the index over the same spans (40 at least), the 5-day return (5 returns)
 * and the 20-day return to day t's close (20 returns).
 */
export function investableFigures(
  px: AlignedCloses,
  index: AlignedCloses,
  t: number,
): Pick<InvestableRow, 'ret20' | 'beta' | 'volatility' | 'reversal'> {
  const r: number[] = []
  const m: Array<number | null> = []
  let later = Number.NaN
  let laterDay = t
  for (let k = t; k >= Math.max(0, t - EXPOSURE_LOOK_BACK); k--) {
    if (Number.isNaN(px[k]!)) continue
    if (!Number.isNaN(later)) {
      // newest first: the return from day k to the next traded day after it
      r.push(later / px[k]! - 1)
      const a = index[k]!
      const b = index[laterDay]!
      m.push(Number.isNaN(a) || Number.isNaN(b) ? null : b / a - 1)
    }
    later = px[k]!
    laterDay = k
  }
  const vol = r.slice(0, 20)
  const pairs = r.slice(0, 60).flatMap((x, i) => (m[i] === null ? [] : [[x, m[i]!] as const]))
  let beta: number | null = null
  if (pairs.length >= 40) {
    const mx = pairs.reduce((a, p) => a + p[1], 0) / pairs.length
    const my = pairs.reduce((a, p) => a + p[0], 0) / pairs.length
    let cov = 0
    let varM = 0
    for (const [y, x] of pairs) {
      cov += (x - mx) * (y - my)
      varM += (x - mx) ** 2
    }
    beta = varM > 0 ? cov / varM : null
  }
  const compound = (n: number): number | null =>
    r.length >= n ? r.slice(0, n).reduce((a, x) => a * (1 + x), 1) - 1 : null
  return {
    // to T's close: none when it has no bar on T (a tier row the bars since marked suspended)
    ret20: Number.isNaN(px[t]!) ? null : compound(20),
    volatility: vol.length >= 10 ? sampleSdOf(vol) : null,
    beta,
    reversal: compound(5),
  }
}

/** A bar of D as the universe's day reads it: raw open and close, the adjustment factor and the day's limit up. */
export interface DayBar {
  readonly open: number
  readonly close: number
  readonly adj: number
  readonly limitUp: number | null
}

/**
 * An investable name's day D: the overnight gap from T's back-adjusted close (null without a close on T) and the
 * day from D's open, both null without a bar on D; whether it opened at its limit up (the book's rule).
 */
export function universeLegs(
  closeT: number | null,
  bar: DayBar | null,
): Pick<UniverseName, 'overnight' | 'intraday' | 'openAtLimitUp'> {
  if (bar === null) return { overnight: null, intraday: null, openAtLimitUp: false }
  return {
    overnight: closeT === null || Number.isNaN(closeT) ? null : (bar.open * bar.adj) / closeT - 1,
    intraday: bar.close / bar.open - 1,
    openAtLimitUp: atLimitUp(bar),
  }
}

export interface BookDayFacts {
  /** The universe's return on D (`universeDay`); null when none of its names traded on D. */
  readonly universeRet: number | null
  readonly universeNames: number
  /** Low-minus-high 20-day traded value and losers-minus-winners 20-day return, legs of the universe on D. */
  readonly sizeFactor: number | null
  readonly reversalFactor: number | null
  /** Mean return on D of the traded-value deciles of `main`'s names in the universe. */
  readonly matchedRet: number | null
  /** Mean z-score of `main`'s names in the investable cross-section; null without two distinct values. */
  readonly exposures: Record<ExposureName, number | null>
  /** Names per industry of `main` (those in the universe) and of the universe; `unknown` without one. */
  readonly industries: { readonly main: Record<string, number>; readonly universe: Record<string, number> }
}

export const UNKNOWN_INDUSTRY = 'unknown'

function exposureOf(row: InvestableRow, name: ExposureName): number | null {
  if (name === 'size') return row.amountMa20 > 0 ? Math.log(row.amountMa20) : null
  return row[name]
}

function meanZ(rows: readonly InvestableRow[], main: ReadonlySet<string>, name: ExposureName): number | null {
  const values: number[] = []
  const picked: number[] = []
  for (const row of rows) {
    const v = exposureOf(row, name)
    if (v === null || !Number.isFinite(v)) continue
    values.push(v)
    if (main.has(row.code)) picked.push(v)
  }
  if (values.length < 2 || picked.length === 0) return null
  const mean = values.reduce((a, b) => a + b, 0) / values.length
  const sd = Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / (values.length - 1))
  if (!(sd > 0)) return null
  return picked.reduce((a, v) => a + (v - mean) / sd, 0) / picked.length
}

export function bookDayFacts(rows: readonly InvestableRow[], main: readonly string[]): BookDayFacts {
  const names = new Set(main)
  const day = universeDay(rows, main)
  const industries = { main: {} as Record<string, number>, universe: {} as Record<string, number> }
  for (const row of rows) {
    const key = row.industry ?? UNKNOWN_INDUSTRY
    industries.universe[key] = (industries.universe[key] ?? 0) + 1
    if (names.has(row.code)) industries.main[key] = (industries.main[key] ?? 0) + 1
  }
  const exposures = Object.fromEntries(EXPOSURES.map((name) => [name, meanZ(rows, names, name)])) as Record<
    ExposureName,
    number | null
  >
  return {
    universeRet: day.ret,
    universeNames: day.names,
    sizeFactor: day.sizeFactor,
    reversalFactor: day.reversalFactor,
    matchedRet: day.matchedRet,
    exposures,
    industries,
  }
}

export interface IndustryWeight {
  readonly industry: string
  /** Time-averaged share of the book's target names, and of the universe's names, in the industry. */
  readonly book: number
  readonly universe: number
}

export interface BookExposures {
  /** Days with facts (plan days whose `main` had names in the universe). */
  readonly days: number
  /** Time-averaged mean z-score of the target names among the investable universe (0 = the universe's average). */
  readonly mean_z: Record<ExposureName, number | null>
  /** Largest book-minus-universe gaps first. */
  readonly industries: IndustryWeight[]
}

const share = (counts: Readonly<Record<string, number>>): Map<string, number> => {
  const total = Object.values(counts).reduce((a, b) => a + b, 0)
  return new Map(total > 0 ? Object.entries(counts).map(([k, n]) => [k, n / total]) : [])
}

/** The days' exposures averaged over the days whose target had names in the universe. */
export function averageExposures(days: readonly BookDayFacts[]): BookExposures {
  const held = days.filter((d) => Object.keys(d.industries.main).length > 0)
  const mean_z = Object.fromEntries(
    EXPOSURES.map((name) => {
      const values = held.flatMap((d) => (d.exposures[name] === null ? [] : [d.exposures[name]!]))
      return [name, values.length ? values.reduce((a, b) => a + b, 0) / values.length : null]
    }),
  ) as Record<ExposureName, number | null>
  const sums = new Map<string, { book: number; universe: number }>()
  for (const day of held) {
    const book = share(day.industries.main)
    const universe = share(day.industries.universe)
    for (const key of new Set([...book.keys(), ...universe.keys()])) {
      const s = sums.get(key) ?? { book: 0, universe: 0 }
      s.book += book.get(key) ?? 0
      s.universe += universe.get(key) ?? 0
      sums.set(key, s)
    }
  }
  const industries = [...sums]
    .map(([industry, s]) => ({ industry, book: s.book / held.length, universe: s.universe / held.length }))
    .sort(
      (a, b) => Math.abs(b.book - b.universe) - Math.abs(a.book - a.universe) || a.industry.localeCompare(b.industry),
    )
  return { days: held.length, mean_z, industries }
}
