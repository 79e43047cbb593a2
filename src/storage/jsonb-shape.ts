/**
 * A value as PostgreSQL hands it back after it was written as `jsonb` from `JSON.stringify(value)`: JSON's own
 * rules (non-finite numbers become null, undefined members go) and then jsonb's, which keeps an object's keys
 * ordered by their length in bytes and then bytewise. A reader that iterates the keys sees that order, so a value
 * kept in memory in place of a read-back must carry it too.
 */
export function asJsonb(value: unknown): unknown {
  const text = JSON.stringify(value)
  return text === undefined ? null : reorder(JSON.parse(text))
}

/** Anything but printable ASCII takes the byte-wise path. */
const NOT_PRINTABLE_ASCII = /[^ -~]/

function jsonbKeyOrder(a: string, b: string): number {
  // on ASCII keys bytes are code units: no encoding per comparison (a replay shapes 5,000 rows a day)
  if (!NOT_PRINTABLE_ASCII.test(a) && !NOT_PRINTABLE_ASCII.test(b))
    return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0)
  const byteA = Buffer.from(a, 'utf8')
  const byteB = Buffer.from(b, 'utf8')
  return byteA.length - byteB.length || Buffer.compare(byteA, byteB)
}

function reorder(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reorder)
  if (value === null || typeof value !== 'object') return value
  const keys = Object.keys(value).sort(jsonbKeyOrder)
  const ordered: Record<string, unknown> = {}
  for (const key of keys) ordered[key] = reorder((value as Record<string, unknown>)[key])
  return ordered
}
