/**
 * Lookup benchmarks on the full demo market: GET /plan/verdict and GET /logic_state with 1, 50 and 500 codes
 * through app.inject, median and p99 latency. Prints figures; asserts nothing.
 *   npx tsx bench/lookups.bench.ts [--stocks 5000 --days 250 --runs 40]   (smaller: --stocks 800 --days 160)
 *
 * The market lives in its own embedded PostgreSQL (var/bench/lookups-<stocks>x<days>), because the bench plans
 * two days and builds a third without planning it, which would change what the other benches measure. The
 * third day is the morning before the plan job ran: every logic state there is `computed`, stepped from the
 * stored state of the day before. Targets (50 codes): verdicts under 50 ms median, logic states under 150 ms.
 */
import path from 'node:path'
import { buildApp } from '../src/http/app.js'
import { benchMarket, ensurePlanned, flag, median, p99, timed } from './support.js'

const stocks = flag('stocks', 5000)
const days = flag('days', 250)
const runs = flag('runs', 40)
const root = path.resolve('var/bench', `lookups-${stocks}x${days}`)
const market = await benchMarket({ PG_DATA_DIR: path.join(root, 'pg'), PLAN_DATA_DIR: path.join(root, 'plan') })
const { services, store, calendar } = market
const signal = new AbortController().signal
const [planned1, planned2, unplanned] = calendar.slice(-3) as [string, string, string]

async function ensureDays(): Promise<void> {
  await ensurePlanned(market, [planned1, planned2], signal)
  const tier = await store.db
    .selectFrom('tier_scores')
    .select('code')
    .where('trade_date', '=', unplanned)
    .limit(1)
    .execute()
  if (tier.length === 0) {
    const [, ms] = await timed(() => services.steps.build({ date: unplanned }, signal))
    console.log(`build ${unplanned} (not planned): ${(ms / 1000).toFixed(1)} s`)
  }
  await store.db.deleteFrom('stock_daily').where('trade_date', '=', unplanned).execute()
}

/** Codes of the date's tier table in a fixed shuffled order (every decision represented at 500). */
async function sampleCodes(date: string): Promise<string[]> {
  const rows = await store.db
    .selectFrom('tier_scores')
    .select('code')
    .where('trade_date', '=', date)
    .orderBy('code')
    .execute()
  const codes = rows.map((r) => r.code)
  let seed = 42
  for (let i = codes.length - 1; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31
    const j = seed % (i + 1)
    ;[codes[i], codes[j]] = [codes[j]!, codes[i]!]
  }
  // the plan's own rows first, so that small batches include main and observe codes
  const plan = await services.plans.getFull(date)
  const selected = plan.rows.slice(0, 10).map((r) => r.code)
  return [...selected, ...codes.filter((c) => !selected.includes(c))]
}

await ensureDays()
const app = await buildApp(services)
const sample = await sampleCodes(planned2)

async function measure(label: string, url: (codes: string) => string, n: number, check: (body: unknown) => string) {
  const codes = sample.slice(0, n).join(',')
  const times: number[] = []
  let summary = ''
  const total = n >= 500 ? Math.max(10, Math.floor(runs / 2)) : runs
  for (let i = 0; i < total + 3; i++) {
    const [res, ms] = await timed(() => app.inject(url(codes)))
    if (res.statusCode !== 200) throw new Error(`${label}: HTTP ${res.statusCode} ${res.body.slice(0, 200)}`)
    if (i >= 3) times.push(ms) // the first three warm caches and the JIT
    if (i === 0) summary = check(res.json())
  }
  console.log(
    `${label.padEnd(34)} ${String(n).padStart(4)} codes: median ${median(times).toFixed(1).padStart(6)} ms, p99 ${p99(times).toFixed(1).padStart(6)} ms  (${total} runs; ${summary})`,
  )
}

const decisions = (body: unknown): string => {
  const counts: Record<string, number> = {}
  for (const v of (body as { verdicts: Array<{ decision?: string }> }).verdicts)
    counts[v.decision ?? 'error'] = (counts[v.decision ?? 'error'] ?? 0) + 1
  return Object.entries(counts)
    .map(([k, c]) => `${k} ${c}`)
    .join(', ')
}
const sources = (body: unknown): string => {
  const counts: Record<string, number> = {}
  for (const s of (body as { states: Array<{ source?: string }> }).states)
    counts[s.source ?? 'error'] = (counts[s.source ?? 'error'] ?? 0) + 1
  return Object.entries(counts)
    .map(([k, c]) => `${k} ${c}`)
    .join(', ')
}

console.log(`demo market ${stocks} x ${days}; planned ${planned1} and ${planned2}; ${unplanned} built, not planned`)
for (const n of [1, 50, 500])
  await measure(`GET /plan/verdict (${planned2})`, (c) => `/plan/verdict?date=${planned2}&codes=${c}`, n, decisions)
for (const n of [1, 50, 500])
  await measure(`GET /logic_state daily (${planned2})`, (c) => `/logic_state?date=${planned2}&codes=${c}`, n, sources)
for (const n of [1, 50, 500])
  await measure(
    `GET /logic_state computed (${unplanned})`,
    (c) => `/logic_state?date=${unplanned}&codes=${c}`,
    n,
    sources,
  )

await app.close()
await services.close()
await store.close()
