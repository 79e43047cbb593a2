/**
 * A value as PostgreSQL hands it back after it was written as `jsonb` from `JSON.stringify(value)`: JSON's own
 * rules (non-finite numbers become null, undefined members go, undefined array items become null) and then
 * jsonb's, which keeps an object's keys ordered by their length in bytes and then bytewise. A reader that iterates
 * the keys sees that order, so a value kept in memory in place of a read-back must carry it too.
 */
export function asJsonb(value: unknown): unknown {
  return value === undefined ? null : shape(value)
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

/** Walks plain data directly; anything JSON.stringify treats specially (toJSON, boxed values, ...) goes through it. */
function shape(value: unknown): unknown {
  if (value === null) return null
  switch (typeof value) {
    case 'number':
      // JSON writes -0 as 0
      return Number.isFinite(value) ? (value === 0 ? 0 : value) : null
    case 'string':
    case 'boolean':
      return value
    case 'object':
      break
    default:
      return JSON.parse(JSON.stringify(value) ?? 'null')
  }
  if (Array.isArray(value)) {
    const out = new Array(value.length)
    for (let i = 0; i < value.length; i++) {
      const item = value[i]
      out[i] = item === undefined || typeof item === 'function' || typeof item === 'symbol' ? null : shape(item)
    }
    return out
  }
  const proto = Object.getPrototypeOf(value)
  if ((proto !== Object.prototype && proto !== null) || typeof (value as { toJSON?: unknown }).toJSON === 'function')
    return reorder(JSON.parse(JSON.stringify(value)))
  const source = value as Record<string, unknown>
  const keys = Object.keys(source).filter((key) => {
    const v = source[key]
    return v !== undefined && typeof v !== 'function' && typeof v !== 'symbol'
  })
  const ordered: Record<string, unknown> = {}
  for (const key of inJsonbOrder(keys)) ordered[key] = shape(source[key])
  return ordered
}

const keyOrders = new Map<string, readonly string[]>()
/** Key lists remembered by `inJsonbOrder`: rows of one kind share a handful of them. */
const REMEMBERED_KEY_LISTS = 10_000

/** The last key list ordered and its order: consecutive rows of a day mostly share one. */
let lastKeys: readonly string[] = []
let lastOrder: readonly string[] = []

/** The keys in jsonb's order; remembered per list, since a day's 5,000 rows mostly share a few lists of keys. */
function inJsonbOrder(keys: string[]): readonly string[] {
  if (keys.length < 2) return keys
  if (sameKeys(keys, lastKeys)) return lastOrder
  const id = JSON.stringify(keys)
  let order = keyOrders.get(id)
  if (order === undefined) {
    order = [...keys].sort(jsonbKeyOrder)
    if (keyOrders.size >= REMEMBERED_KEY_LISTS) keyOrders.clear()
    keyOrders.set(id, order)
  }
  lastKeys = keys
  lastOrder = order
  return order
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/** Key order of parsed JSON (plain data only). */
function reorder(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reorder)
  if (value === null || typeof value !== 'object') return value
  const keys = Object.keys(value).sort(jsonbKeyOrder)
  const ordered: Record<string, unknown> = {}
  for (const key of keys) ordered[key] = reorder((value as Record<string, unknown>)[key])
  return ordered
}
