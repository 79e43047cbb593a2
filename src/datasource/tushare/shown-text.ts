/**
 * Text a tushare answer supplies (its `msg`, a row's values, its column names) as it may go into an error, a log
 * line or a run log: at most `max` characters, and every control or format character shown as `\u{…}`, so an
 * answer cannot move a terminal's cursor, recolour it, forge a log line with a line break or reorder what follows
 * with a bidi override.
 */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu

export function shownText(value: unknown, max = 200): string {
  const text = typeof value === 'string' ? value : String(value)
  const kept = text.length > max ? text.slice(0, max) : text
  const escaped = kept.replace(UNSAFE, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`)
  return text.length > max ? `${escaped}… (${text.length - max} more characters)` : escaped
}
