import { isIsoDate } from '../domain/iso-date.js'
import type { DateArgs } from '../jobs/job.js'

export type ParsedParams =
  | { readonly ok: true; readonly args: DateArgs }
  | { readonly ok: false; readonly error: string }

const EXPECTED = 'expected {"tradeDate":"YYYY-MM-DD"} or blank'

function quote(raw: string): string {
  return JSON.stringify(raw.length > 200 ? `${raw.slice(0, 200)}...` : raw)
}

/**
 * `executorParams` of a trigger: blank (latest data date), `{"tradeDate":"YYYY-MM-DD"}` (a real date; `{}` or a
 * null/blank tradeDate also mean latest) or, for a hand-typed manual trigger, a bare `YYYY-MM-DD`. Anything else,
 * including unknown keys (a typo must not silently run the latest date), is an error the run fails with.
 */
export function parseExecutorParams(raw: string): ParsedParams {
  const text = raw.trim()
  if (text === '') return { ok: true, args: {} }
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) {
    return isIsoDate(text)
      ? { ok: true, args: { date: text } }
      : { ok: false, error: `invalid executorParams: ${text} is not a real date` }
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return { ok: false, error: `invalid executorParams: ${EXPECTED}, got ${quote(raw)} (not JSON)` }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, error: `invalid executorParams: ${EXPECTED}, got ${quote(raw)}` }
  }
  const record = value as Record<string, unknown>
  const unknown = Object.keys(record).filter((key) => key !== 'tradeDate')
  if (unknown.length > 0) {
    return {
      ok: false,
      error: `invalid executorParams: unknown key ${unknown.map((k) => JSON.stringify(k)).join(', ')}; ${EXPECTED}`,
    }
  }
  const tradeDate = record.tradeDate
  if (tradeDate === undefined || tradeDate === null || (typeof tradeDate === 'string' && tradeDate.trim() === '')) {
    return { ok: true, args: {} }
  }
  if (typeof tradeDate !== 'string' || !isIsoDate(tradeDate.trim())) {
    return {
      ok: false,
      error: `invalid executorParams: tradeDate must be a real YYYY-MM-DD date, got ${JSON.stringify(tradeDate)}`,
    }
  }
  return { ok: true, args: { date: tradeDate.trim() } }
}
