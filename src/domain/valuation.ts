/**
 * Safety-margin valuation (DESIGN §8 "Valuation", as calibrated for PLAN_VERSION 2): bear / neutral / bull
 * values and their margins of safety. One EPS horizon throughout: trailing twelve months.
 *
 * - `pe_band`: TTM EPS x the stock's own PE(TTM) P20 / P50 / P80 over up to 5 years of daily history. Each
 *   day's PE(TTM) is winsorised into [3, 150] first (a one-off gain or a near-zero profit says nothing about
 *   the multiple the market pays). Needs at least 60 days of positive PE(TTM) (a quarter; with less than a year
 *   the notes say so), a positive TTM EPS and a PE today of at least 3 (below that the earnings are most
 *   likely one-off). The bear / bull EPS are the TTM EPS
 *   scaled by a fresh forecast's low/mean and high/mean (at most 120 calendar days old, ratios clamped to
 *   0.7..1 and 1..1.3), else by 0.9 / 1.1: the forecast spreads the scenarios, it never sets the horizon.
 * - `pb_roe`: when the PE band is unusable, value = BVPS x (ROE - g) / (r - g) (the Gordon growth model's
 *   justified P/B) with r = 8% (China 10-year yield ~2% + equity risk premium ~6%, beta 1) and g = 3% (long-run
 *   nominal growth, conservative), on annualised ROE at P20 / P50 / P80 of the last 12 reports, each capped at
 *   30% (no company earns more forever). Needs a positive BVPS and at least 4 reports: fewer, and the three
 *   scenarios would be spread from one point.
 * - Otherwise null: no number is ever made up.
 * Percentiles use linear interpolation between closest ranks (see `percentile` in stats.ts).
 * Values are rounded to 2 decimals, margins (mos = 1 - price/value) to 3.
 */
import { clamp, deepFreeze, percentile, roundTo } from './stats.js'

export interface ForecastInput {
  readonly eps_mean: number | null
  readonly eps_low: number | null
  readonly eps_high: number | null
  /** When the consensus was taken; a forecast without it is treated as stale. */
  readonly as_of?: string | null
}

export interface ValuationInput {
  readonly price: number | null
  /** Daily pe_ttm, oldest first, up to 5 years; null on loss-making days. */
  readonly peHistory: readonly (number | null)[]
  readonly epsTtm: number | null
  readonly forecast: ForecastInput | null
  /** The valuation date, for the forecast's age. */
  readonly date?: string | null
  readonly bvps: number | null
  /** Annualised ROE history as fractions, newest report first. */
  readonly roeHistory: readonly number[]
}

/**
 * Winsorised PE(TTM) percentiles of the valuation window, as `peBandStats` computes them from a history or
 * PostgreSQL's `percentile_cont(0.2 | 0.5 | 0.8)` does over the same clipped days. `days` = positive days.
 */
export interface PeBandStats {
  readonly days: number
  readonly p20: number
  readonly p50: number
  readonly p80: number
}

/** `ValuationInput` with the PE history already reduced to its percentiles (null when there is none). */
export interface ValuationStatsInput extends Omit<ValuationInput, 'peHistory'> {
  readonly pe: PeBandStats | null
}

export interface Scenario {
  readonly value: number
  readonly mos: number
}

export type ValuationMethod = 'pe_band' | 'pb_roe'

export interface Valuation {
  readonly method: ValuationMethod
  readonly price: number
  readonly scenarios: { bear: Scenario; neutral: Scenario; bull: Scenario }
  readonly reference_target: number
  readonly inputs: Record<string, number | string | null>
  readonly notes: string[]
}

export const VALUATION_RULES = deepFreeze({
  /** Percentile (fraction) of the multiple / ROE per scenario; `PeBandStats` names them p20 / p50 / p80. */
  percentiles: { bear: 0.2, neutral: 0.5, bull: 0.8 },
  /** EPS multipliers for bear / bull without a fresh forecast. */
  epsFactors: { bear: 0.9, neutral: 1, bull: 1.1 },
  /** A forecast's low/mean and high/mean ratios are clamped into these ranges. */
  forecastSpread: { bearMin: 0.7, bullMax: 1.3 },
  /** A forecast older than this (calendar days) is not used. */
  forecastMaxAgeDays: 120,
  /** At most 5 years of trading days (240 a year) of PE history are used. */
  peMaxDays: 1200,
  /** At least a quarter of positive PE(TTM) days; below a year the valuation says so in its notes. */
  peMinDays: 60,
  peFullDays: 240,
  /** Each day's PE(TTM) is clipped into this range before the percentiles. */
  peWinsor: { lo: 3, hi: 150 },
  /** Below this PE(TTM) today the earnings are treated as one-off and the PE band is not used. */
  peTodayMin: 3,
  /** Required return and perpetual growth of the PB-ROE model (recorded in `inputs`). */
  pbRoe: { r: 0.08, g: 0.03 },
  roeCap: 0.3,
  roeMinPoints: 4,
  roeMaxPoints: 12,
  valueDigits: 2,
  mosDigits: 3,
  inputDigits: 4,
} as const)

type Key = 'bear' | 'neutral' | 'bull'
const KEYS: readonly Key[] = ['bear', 'neutral', 'bull']
type Triple = Record<Key, number>

const isNum = (v: number | null | undefined): v is number => v !== null && v !== undefined && Number.isFinite(v)
const inp = (v: number): number => roundTo(v, VALUATION_RULES.inputDigits)

interface Attempt {
  readonly values: Triple | null
  readonly inputs: Record<string, number | string | null>
  readonly notes: string[]
}

function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000)
}

/** The forecast's spread of the TTM EPS, or null (with a note) when there is no fresh, usable forecast. */
function forecastSpread(input: ValuationStatsInput, notes: string[]): { bear: number; bull: number } | null {
  const R = VALUATION_RULES
  const f = input.forecast
  if (f === null || !isNum(f.eps_mean) || f.eps_mean <= 0) return null
  if (!f.as_of || !input.date) {
    notes.push('forecast has no date: not used')
    return null
  }
  const age = daysBetween(f.as_of, input.date)
  if (age > R.forecastMaxAgeDays) {
    notes.push(`forecast of ${f.as_of} is ${age} days old (at most ${R.forecastMaxAgeDays}): not used`)
    return null
  }
  const low = isNum(f.eps_low) ? f.eps_low / f.eps_mean : R.epsFactors.bear
  const high = isNum(f.eps_high) ? f.eps_high / f.eps_mean : R.epsFactors.bull
  return { bear: clamp(low, R.forecastSpread.bearMin, 1), bull: clamp(high, 1, R.forecastSpread.bullMax) }
}

const PE_KEY: Record<Key, 'p20' | 'p50' | 'p80'> = { bear: 'p20', neutral: 'p50', bull: 'p80' }

/** Winsorised PE(TTM) P20/P50/P80 of the last 5 years (1200 entries) of a daily history, positive days only. */
export function peBandStats(peHistory: readonly (number | null)[]): PeBandStats | null {
  const P = VALUATION_RULES.percentiles
  const W = VALUATION_RULES.peWinsor
  const pe = peHistory
    .slice(-VALUATION_RULES.peMaxDays)
    .filter((v): v is number => isNum(v) && v > 0)
    .map((v) => clamp(v, W.lo, W.hi))
  if (pe.length === 0) return null
  return {
    days: pe.length,
    p20: percentile(pe, P.bear)!,
    p50: percentile(pe, P.neutral)!,
    p80: percentile(pe, P.bull)!,
  }
}

function peBand(input: ValuationStatsInput): Attempt {
  const R = VALUATION_RULES
  const notes: string[] = []
  const days = input.pe?.days ?? 0
  const inputs: Record<string, number | string | null> = { eps_horizon: 'ttm', pe_days: days }
  const ttm = input.epsTtm
  if (!isNum(ttm)) return { values: null, inputs, notes: ['PE band unusable: no TTM EPS'] }
  inputs.eps_ttm = inp(ttm)
  if (ttm <= 0) return { values: null, inputs, notes: ['PE band unusable: TTM EPS is not positive (loss-making)'] }
  const peToday = isNum(input.price) ? input.price / ttm : null
  if (peToday !== null && peToday < R.peTodayMin) {
    return {
      values: null,
      inputs,
      notes: [`PE band unusable: PE(TTM) ${peToday.toFixed(1)} below ${R.peTodayMin}, earnings likely one-off`],
    }
  }
  const pe = input.pe
  if (pe === null || days < R.peMinDays || KEYS.some((k) => !isNum(pe[PE_KEY[k]]) || pe[PE_KEY[k]] <= 0)) {
    return {
      values: null,
      inputs,
      notes: [`PE band unusable: ${days} days of PE(TTM) history, at least ${R.peMinDays} needed`],
    }
  }
  if (days < R.peFullDays) notes.push(`PE band over ${days} days only (less than a year of PE(TTM) history)`)
  const spread = forecastSpread(input, notes)
  const factor: Triple = spread
    ? { bear: spread.bear, neutral: 1, bull: spread.bull }
    : { bear: R.epsFactors.bear, neutral: 1, bull: R.epsFactors.bull }
  inputs.eps_spread = spread ? 'forecast' : 'fixed'
  const values = {} as Triple
  for (const k of KEYS) {
    const multiple = pe[PE_KEY[k]]
    inputs[`pe_${PE_KEY[k]}`] = inp(multiple)
    inputs[`eps_${k}`] = inp(ttm * factor[k])
    values[k] = ttm * factor[k] * multiple
  }
  return { values, inputs, notes }
}

function pbRoe(input: ValuationStatsInput): Attempt {
  const R = VALUATION_RULES
  const { r, g } = R.pbRoe
  const roe = input.roeHistory
    .filter((v) => Number.isFinite(v))
    .slice(0, R.roeMaxPoints)
    .map((v) => Math.min(v, R.roeCap))
  const inputs: Record<string, number | string | null> = {
    bvps: isNum(input.bvps) ? input.bvps : null,
    roe_points: roe.length,
    r,
    g,
  }
  if (!isNum(input.bvps) || input.bvps <= 0)
    return { values: null, inputs, notes: ['PB-ROE unusable: no positive BVPS'] }
  if (roe.length < R.roeMinPoints)
    return {
      values: null,
      inputs,
      notes: [`PB-ROE unusable: ${roe.length} ROE reports, at least ${R.roeMinPoints} needed to spread scenarios`],
    }
  const values = {} as Triple
  for (const k of KEYS) {
    const roeK = percentile(roe, R.percentiles[k])!
    inputs[`roe_p${Math.round(R.percentiles[k] * 100)}`] = inp(roeK)
    values[k] = (input.bvps * (roeK - g)) / (r - g)
  }
  if (KEYS.some((k) => values[k] <= 0)) {
    return { values: null, inputs, notes: [`PB-ROE unusable: ROE at or below growth g = ${g} gives no positive value`] }
  }
  return { values, inputs, notes: [] }
}

function build(method: ValuationMethod, price: number, attempt: Attempt, notes: string[]): Valuation | null {
  const R = VALUATION_RULES
  const values = attempt.values
  if (values === null) return null
  const scenario = (k: Key): Scenario => {
    const value = roundTo(values[k], R.valueDigits)
    return { value, mos: roundTo(1 - price / value, R.mosDigits) }
  }
  const scenarios = { bear: scenario('bear'), neutral: scenario('neutral'), bull: scenario('bull') }
  if (KEYS.some((k) => scenarios[k].value <= 0)) return null
  return {
    method,
    price,
    scenarios,
    reference_target: scenarios.neutral.value,
    inputs: attempt.inputs,
    notes: [...notes, ...attempt.notes],
  }
}

/** The valuation by the first usable method, or null (no price, or neither method usable). */
export function computeValuation(input: ValuationInput): Valuation | null {
  const { peHistory, ...rest } = input
  return valuationFromStats({ ...rest, pe: peBandStats(peHistory) })
}

/** `computeValuation` for callers that already hold the PE percentiles (e.g. from SQL). */
export function valuationFromStats(input: ValuationStatsInput): Valuation | null {
  if (!isNum(input.price) || input.price <= 0) return null
  const price = input.price
  const pe = peBand(input)
  const viaPe = build('pe_band', price, pe, [])
  if (viaPe) return viaPe
  return build('pb_roe', price, pbRoe(input), pe.notes)
}

const METHOD_LABEL: Record<ValuationMethod, string> = { pe_band: 'PE band', pb_roe: 'PB-ROE' }

export function methodLabel(method: string | null): string {
  return method === null ? 'no valuation' : (METHOD_LABEL[method as ValuationMethod] ?? method)
}

/** Prices of 100 or more show 1 decimal, smaller ones 2 (a 1-decimal value of a 4-yuan stock says little). */
function money(value: number): string {
  return value.toFixed(Math.abs(value) >= 100 ? 1 : 2)
}

/** One line, e.g. `neutral 1990.8 (margin 14.6%), bear 1317.2, bull 2821.0 · PE band`. */
export function formatValuation(v: Valuation | null): string | null {
  if (v === null) return null
  const { bear, neutral, bull } = v.scenarios
  const margin = (neutral.mos * 100).toFixed(1)
  return `neutral ${money(neutral.value)} (margin ${margin}%), bear ${money(bear.value)}, bull ${money(bull.value)} · ${METHOD_LABEL[v.method]}`
}
