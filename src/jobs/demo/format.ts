/** Number formatting for the CSV files: fixed decimals, never `-0`, prices kept as integer fen (cents). */

/** Integer fen -> `12.34`. */
export function fen(value: number): string {
  const sign = value < 0 ? '-' : ''
  const abs = Math.abs(value)
  const yuan = Math.floor(abs / 100)
  const rest = abs - yuan * 100
  return `${sign}${yuan}.${rest < 10 ? '0' : ''}${rest}`
}

/** `value` with `digits` decimals; `-0.00` becomes `0.00`. */
export function fixed(value: number, digits: number): string {
  const text = value.toFixed(digits)
  return text.startsWith('-') && Number(text) === 0 ? text.slice(1) : text
}

/** `value` rounded to `digits` decimals, as a number (through its fixed text, so it matches what is written). */
export function rounded(value: number, digits: number): number {
  return Number(fixed(value, digits))
}

export function clamp(value: number, lo: number, hi: number): number {
  return value < lo ? lo : value > hi ? hi : value
}
