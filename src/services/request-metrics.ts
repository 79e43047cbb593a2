import type { Metric, Registry } from 'prom-client'

interface Tally {
  readonly labels: Readonly<Record<'route' | 'method' | 'status', string>>
  count: number
  sum: number
  /** Observations per bucket (not cumulative), the last one for +Inf. */
  readonly perBucket: Float64Array
}

type Value = { labels: Record<string, string | number>; value: number; metricName?: string }

/**
 * `stockplan_http_requests_total` and `stockplan_http_request_duration_seconds` by route, method and status: tallied per label set in
 * plain numbers and handed to prom-client as values only when scraped. prom-client's own `inc`/`observe` build
 * and hash a label string on every call, which on a cached plan hit costs more than the rest of the bookkeeping.
 * The exposition is the same as prom-client's Counter and Histogram.
 */
export function registerRequestMetrics(
  registry: Registry,
  buckets: readonly number[],
  /** Label sets exposed at 0 from the start: `rate()` cannot count a series' first value, so a first error would go unseen. */
  seeded: readonly { route: string; method: string; status: number }[] = [],
): (route: string, method: string, status: number, seconds: number) => void {
  // by route, then method, then status: the route and method strings are the same few objects request after request,
  // so each lookup hashes nothing new (a key built per request was a string to allocate and hash each time)
  const byRoute = new Map<string, Map<string, Map<number, Tally>>>()
  const tallies: Tally[] = []
  const metric = (name: string, help: string, type: 'counter' | 'histogram', values: () => Value[]) =>
    ({
      name,
      help,
      type,
      aggregator: 'sum',
      get: async () => ({ name, help, type, aggregator: 'sum', values: values() }),
      reset: () => {
        byRoute.clear()
        tallies.length = 0
      },
    }) as unknown as Metric
  registry.registerMetric(
    metric('stockplan_http_requests_total', 'HTTP requests by route, method and status', 'counter', () =>
      tallies.map((t) => ({ labels: { ...t.labels }, value: t.count })),
    ),
  )
  registry.registerMetric(
    metric(
      'stockplan_http_request_duration_seconds',
      'HTTP request duration by route, method and status',
      'histogram',
      () =>
        tallies.flatMap((t) => {
          const out: Value[] = []
          let cumulative = 0
          buckets.forEach((le, i) => {
            cumulative += t.perBucket[i]!
            out.push({
              labels: { ...t.labels, le },
              value: cumulative,
              metricName: 'stockplan_http_request_duration_seconds_bucket',
            })
          })
          out.push({
            labels: { ...t.labels, le: '+Inf' },
            value: t.count,
            metricName: 'stockplan_http_request_duration_seconds_bucket',
          })
          out.push({ labels: { ...t.labels }, value: t.sum, metricName: 'stockplan_http_request_duration_seconds_sum' })
          out.push({
            labels: { ...t.labels },
            value: t.count,
            metricName: 'stockplan_http_request_duration_seconds_count',
          })
          return out
        }),
    ),
  )
  const tallyOf = (route: string, method: string, status: number): Tally => {
    let byMethod = byRoute.get(route)
    if (!byMethod) {
      byMethod = new Map()
      byRoute.set(route, byMethod)
    }
    let byStatus = byMethod.get(method)
    if (!byStatus) {
      byStatus = new Map()
      byMethod.set(method, byStatus)
    }
    let tally = byStatus.get(status)
    if (!tally) {
      tally = {
        labels: { route, method, status: String(status) },
        count: 0,
        sum: 0,
        perBucket: new Float64Array(buckets.length + 1),
      }
      byStatus.set(status, tally)
      tallies.push(tally)
    }
    return tally
  }
  for (const s of seeded) tallyOf(s.route, s.method, s.status)
  return (route, method, status, seconds) => {
    const tally = tallyOf(route, method, status)
    tally.count++
    tally.sum += seconds
    let i = 0
    while (i < buckets.length && seconds > buckets[i]!) i++
    tally.perBucket[i]!++
  }
}
