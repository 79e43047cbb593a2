/**
 * Large lookups as a hostile client sends them, against the service in its own process: 1000-code
 * `GET /plan/verdict` and `GET /logic_state` from N concurrent clients for some seconds each, while `/health` is
 * probed every 20 ms from this process. The clients run in their own process (bench/lookup-load-client.ts), so
 * neither the server nor the probe shares their event loop. Prints the lookups' p50/p95/p99, /health's p50/p99/max
 * meanwhile, the CPU per lookup of the server and of the load client (the client must stay below the server), and
 * the server's longest event-loop stall (prom-client's `nodejs_eventloop_lag_max_seconds`, reset by every scrape).
 * Asserts nothing.
 *   npx tsx bench/lookup-load.bench.ts [--stocks 800 --days 320 --concurrency 8 --seconds 10 --profile]
 * The default market has the demo's size (800 x 320). BENCH_SERVICE_ROOT=<another checkout> serves that
 * checkout's code instead (before/after on the same market).
 * --profile runs the service under --cpu-prof and prints where its CPU went during each endpoint's load.
 * The codes: the last date's whole tier table (every decision), filled up to 1000 with codes the market does not
 * have (absent verdicts, computed logic states).
 */
import { fork } from 'node:child_process'
import { readFile, rm } from 'node:fs/promises'
import path from 'node:path'
import { summariseProfile } from './cpu-profile.js'
import { benchMarket, ensurePlanned, flag, startService, stopProcess, thousandCodeQuery } from './support.js'

const concurrency = flag('concurrency', 8)
const seconds = flag('seconds', 10)
const port = Number(process.env.BENCH_PORT ?? 8370)
const base = `http://127.0.0.1:${port}`

const market = await benchMarket({}, { stocks: 800, days: 320 })
await ensurePlanned(market, [market.lastDate], new AbortController().signal)
const { query, tierCodes } = await thousandCodeQuery(market)

const profile = process.argv.includes('--profile')
const profDir = path.resolve('var/bench/lookup-load-prof')
await rm(profDir, { recursive: true, force: true })
const server = await startService(market, port, {
  stdout: '/dev/null',
  execArgv: profile ? ['--cpu-prof', '--cpu-prof-dir', profDir] : [],
})
const windows = new Map<string, Array<[number, number]>>()
const nowMicros = (): number => Number(process.hrtime.bigint() / 1000n)
const pid = server.pid!
const clkTck = 100

const pct = (xs: number[], p: number): number => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN
}
async function cpuSeconds(): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8')
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(f[11]) + Number(f[12])) / clkTck
}
async function maxLoopStallMs(): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text()
  const line = text.split('\n').find((l) => l.startsWith('nodejs_eventloop_lag_max_seconds '))
  return Number(line?.split(' ')[1]) * 1000
}
async function timedGet(url: string): Promise<number> {
  const started = performance.now()
  const res = await fetch(url)
  await res.arrayBuffer()
  if (res.status !== 200) throw new Error(`${url.slice(0, 80)}: HTTP ${res.status}`)
  return performance.now() - started
}

interface ClientResult {
  readonly latencies: number[]
  readonly failures: number
  readonly wallMs: number
  readonly cpuMs: number
}

/** The load generator in its own process (bench/lookup-load-client.ts): its latencies and its own CPU. */
function runClients(url: string): { started: Promise<void>; done: Promise<ClientResult> } {
  let started!: () => void
  const startedPromise = new Promise<void>((resolve) => {
    started = resolve
  })
  const done = new Promise<ClientResult>((resolve, reject) => {
    const child = fork(
      path.resolve(import.meta.dirname, 'lookup-load-client.ts'),
      [url, String(concurrency), String(seconds)],
      { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'pipe', 'inherit', 'ipc'] },
    )
    child.once('message', () => started())
    let out = ''
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString()
    })
    child.once('error', reject)
    child.once('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out) as ClientResult) : reject(new Error(`load client exited with ${code}`)),
    )
  })
  return { started: startedPromise, done }
}

async function measure(label: string, path: string): Promise<void> {
  for (let i = 0; i < 3; i++) await timedGet(`${base}${path}?${query}`) // warm-up
  await maxLoopStallMs() // resets the server's lag histogram
  const cpuBefore = await cpuSeconds()
  const from = nowMicros()
  const load = runClients(`${base}${path}?${query}`)
  let loading = true
  void load.done.finally(() => {
    loading = false
  })
  const health: number[] = []
  await load.started // the probe runs while the load does
  while (loading) {
    health.push(await timedGet(`${base}/health`))
    await new Promise((r) => setTimeout(r, 20))
  }
  const { latencies: lookups, failures, wallMs, cpuMs: clientMs } = await load.done
  windows.set(label, [[from, nowMicros()]])
  const serverMs = ((await cpuSeconds()) - cpuBefore) * 1000
  const stall = await maxLoopStallMs()
  const ms = (x: number): string => x.toFixed(0).padStart(5)
  console.log(
    `${label.padEnd(18)} c=${concurrency}: p50 ${ms(pct(lookups, 0.5))} ms, p95 ${ms(pct(lookups, 0.95))} ms, p99 ${ms(
      pct(lookups, 0.99),
    )} ms, ${((lookups.length / wallMs) * 1000).toFixed(1).padStart(5)} req/s${failures ? `, ${failures} non-200` : ''}` +
      ` | CPU per request: server ${(serverMs / lookups.length).toFixed(1)} ms, load client ${(
        clientMs / lookups.length
      ).toFixed(1)} ms` +
      ` | /health p50 ${pct(health, 0.5).toFixed(1)} ms, p99 ${pct(health, 0.99).toFixed(1)} ms, max ${Math.max(
        ...health,
      ).toFixed(1)} ms (${health.length} probes) | server's longest loop stall ${stall.toFixed(0)} ms`,
  )
}

console.log(
  `market ${market.config.pgDataDir.split('/').at(-2)}, date ${market.lastDate}: ${tierCodes} tier codes + ${
    1000 - Math.min(1000, tierCodes)
  } unknown = 1000 codes per request`,
)
await measure('GET /plan/verdict', '/plan/verdict')
await measure('GET /logic_state', '/logic_state')
await stopProcess(server)
if (profile) {
  for (const [label, w] of windows)
    console.log(`\n${label}: ${await summariseProfile(profDir, { windows: w, top: 15 })}`)
}
await market.services.close()
await market.store.close()
