/**
 * Safety-margin valuation (DESIGN §8 "Valuation"): bear / neutral / bull values and their margins of safety.
 *
 * - `pe_band`: EPS (forecast low/mean/high, else TTM x 0.85/1/1.15) x the stock's own PE(TTM) P20/P50/P80 over
 *   up to 5 years of daily history; needs at least 240 non-null trading days and every scenario EPS > 0.
 * - `pb_roe`: when PE is unusable, value = BVPS x (ROE - g)/(r - g) with ROE at P20/P50/P80 of its history;
 *   needs BVPS > 0 and every scenario value > 0.
 * - Otherwise null: no number is ever made up.
 * Percentiles use linear interpolation between closest ranks (see `percentile` in stats.ts).
 * Values are rounded to 2 decimals, margins (mos = 1 - price/value) to 3.
 */
import { deepFreeze, percentile, roundTo } from './stats.js'

export interface ValuationInput {
  readonly price: number | null
  /** Daily pe_ttm, oldest first, up to 5 years; null on loss-making days. */
  readonly peHistory: readonly (number | null)[]
  readonly epsTtm: number | null
  readonly forecast: {
    readonly eps_mean: number | null
    readonly eps_low: number | null
    readonly eps_high: number | null
  } | null
  readonly bvps: number | null
  /** ROE history as fractions. */
  readonly roeHistory: readonly number[]
}

/**
 * PE(TTM) percentiles of the valuation window, as `peBandStats` computes them from a history or PostgreSQL's
 * `percentile_cont(0.2 | 0.5 | 0.8)` does over the same days (the same interpolation). `days` = non-null days.
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
  /** EPS multipliers when there is no forecast (TTM EPS), and for a forecast missing its low or high. */
  epsFactors: { bear: 0.85, neutral: 1, bull: 1.15 },
  /** At most 5 years of trading days (240 a year) of PE history are used. */
  peMaxDays: 1200,
  /** At least one year of non-null PE(TTM) days. */
  peMinDays: 240,
  /** Required return and perpetual growth of the PB-ROE model (recorded in `inputs`). */
  pbRoe: { r: 0.09, g: 0.03 },
  roeMinPoints: 1,
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

function scenarioEps(input: ValuationStatsInput, notes: string[]): { eps: Triple; source: string } | null {
  const F = VALUATION_RULES.epsFactors
  const f = input.forecast
  if (f !== null && isNum(f.eps_mean)) {
    const mean = f.eps_mean
    if (!isNum(f.eps_low)) notes.push(`forecast has no low EPS: bear uses ${F.bear} x mean`)
    if (!isNum(f.eps_high)) notes.push(`forecast has no high EPS: bull uses ${F.bull} x mean`)
    return {
      eps: {
        bear: isNum(f.eps_low) ? f.eps_low : mean * F.bear,
        neutral: mean,
        bull: isNum(f.eps_high) ? f.eps_high : mean * F.bull,
      },
      source: 'forecast',
    }
  }
  if (isNum(input.epsTtm)) {
    const ttm = input.epsTtm
    return { eps: { bear: ttm * F.bear, neutral: ttm * F.neutral, bull: ttm * F.bull }, source: 'ttm' }
  }
  return null
}

const PE_KEY: Record<Key, 'p20' | 'p50' | 'p80'> = { bear: 'p20', neutral: 'p50', bull: 'p80' }

/** PE(TTM) P20/P50/P80 of the last 5 years (1200 entries) of a daily history, ignoring null and non-positive days. */
export function peBandStats(peHistory: readonly (number | null)[]): PeBandStats | null {
  const P = VALUATION_RULES.percentiles
  const pe = peHistory.slice(-VALUATION_RULES.peMaxDays).filter((v): v is number => isNum(v) && v > 0)
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
  const eps = scenarioEps(input, notes)
  const inputs: Record<string, number | string | null> = {
    eps_source: eps?.source ?? null,
    pe_days: days,
  }
  if (eps === null) return { values: null, inputs, notes: ['PE band unusable: no EPS (neither forecast nor TTM)'] }
  for (const k of KEYS) inputs[`eps_${k}`] = inp(eps.eps[k])
  if (KEYS.some((k) => eps.eps[k] <= 0)) {
    return { values: null, inputs, notes: [...notes, `PE band unusable: ${eps.source} EPS is not positive`] }
  }
  const pe = input.pe
  if (pe === null || days < R.peMinDays || KEYS.some((k) => !isNum(pe[PE_KEY[k]]) || pe[PE_KEY[k]] <= 0)) {
    return {
      values: null,
      inputs,
      notes: [...notes, `PE band unusable: ${days} days of PE(TTM) history, at least ${R.peMinDays} needed`],
    }
  }
  const values = {} as Triple
  for (const k of KEYS) {
    const multiple = pe[PE_KEY[k]]
    inputs[`pe_${PE_KEY[k]}`] = inp(multiple)
    values[k] = eps.eps[k] * multiple
  }
  return { values, inputs, notes }
}

function pbRoe(input: ValuationStatsInput): Attempt {
  const R = VALUATION_RULES
  const { r, g } = R.pbRoe
  const roe = input.roeHistory.filter((v) => Number.isFinite(v))
  const inputs: Record<string, number | string | null> = {
    bvps: isNum(input.bvps) ? input.bvps : null,
    roe_points: roe.length,
    r,
    g,
  }
  if (!isNum(input.bvps) || input.bvps <= 0)
    return { values: null, inputs, notes: ['PB-ROE unusable: no positive BVPS'] }
  if (roe.length < R.roeMinPoints) return { values: null, inputs, notes: ['PB-ROE unusable: no ROE history'] }
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
