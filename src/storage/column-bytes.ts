import { type RawBuilder, sql } from 'kysely'

/**
 * Per-code columns sent compactly: numbers as their float8 bytes (`float8send`, 8 bytes each, big-endian) and flags
 * as one character a day. Parsing a float8[] from array text cost more than the query itself for a market's window.
 */

/** `string_agg` of an expression's float8 bytes in date order; the expression must not be null (coalesce it). */
export const floatColumn = (expression: string): RawBuilder<Buffer> =>
  sql.raw(`string_agg(float8send(${expression}), ''::bytea order by trade_date)`)

/** `string_agg` of a boolean column as `1`/`0` in date order. */
export const flagColumn = (column: string): RawBuilder<string> =>
  sql.raw(`string_agg(case when ${column} then '1' else '0' end, '' order by trade_date)`)

/** A column sent by `floatColumn`. */
export function doubles(bytes: Buffer): Float64Array {
  const out = new Float64Array(bytes.length / 8)
  for (let i = 0; i < out.length; i++) out[i] = bytes.readDoubleBE(i * 8)
  return out
}

/** A column sent by `flagColumn`. */
export function flags(text: string): Uint8Array {
  const out = new Uint8Array(text.length)
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i) === 49 ? 1 : 0
  return out
}
