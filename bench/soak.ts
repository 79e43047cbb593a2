/**
 * Soak on the full demo market: the real server (startServer) in this process, load from autocannon in a child
 * process. Prints figures; asserts nothing. Not part of the test run.
 *   npx tsx bench/soak.ts [--seconds 60 --connections 100] [--stocks 5000 --days 250] [--chain-in-process]
 *   npx tsx bench/soak.ts --kill-db [--down 10] ...   (phase 2 is the database killed and restarted instead)
 *
 * Request mix: one autocannon instance with `connections` connections; every request picks its endpoint at
 * random with the weights 70% cached GET /plan, 10% GET /plan?nocache=1, 10% GET /plan/verdict with 20 codes,
 * 5% GET /logic_state with 10 codes, 5% GET /health (so the mix holds per request, not per connection), and is
 * timed from the moment it is built to its last byte, per endpoint.
 *
 * Phase 1: steady load with the last two days planned. Phase 2: the last day is taken back (its tier_scores,
 * builds and stock_daily rows and its snapshot, plan and pool files deleted), then the same load runs while
 * a chain for that date starts a third of the way in, as a `stockplan chain` child process the way the scheduler
 * entry runs it (in this process with --chain-in-process); afterwards GET /plan is polled until it serves the
 * new date. RSS of this (the server's) process is sampled every second.
 *
 * The market lives in its own embedded PostgreSQL (var/bench/soak-<stocks>x<days>), since phase 2 rewrites
 * the last day. The server runs on benchMarket's store, so its pool has 20 connections (`stockplan serve`: 10).
 * Between phases a full GC is forced and the settled heap printed: a leak grows it, warm-up does not.
 *
 * With --kill-db, phase 2 is instead: the same load, the embedded postmaster killed (SIGKILL) a third of the way
 * in; the server supervises the store it was handed, as `serve` does, and starts it again on its port (should
 * it still be down `--down` seconds later, the bench starts it itself); /health is polled until ok. Every non-2xx answer is
 * timed, so the figures say how many came while the store was down (kill to ok again) and how many outside.
 */
import { spawn } from 'node:child_process'
import { rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import v8 from 'node:v8'
import vm from 'node:vm'

interface Mix {
  readonly tag: string
  readonly weight: number
  readonly paths: readonly string[]
}

interface LoadConfig {
  readonly url: string
  readonly seconds: number
  readonly connections: number
  readonly mix: readonly Mix[]
}

interface EndpointFigures {
  readonly count: number
  readonly non2xx: number
  /** Wall-clock times (epoch ms) of the non-2xx answers, and their statuses. */
  readonly non2xxAt: readonly number[]
  readonly statuses: Record<string, number>
  readonly p50: number
  readonly p99: number
  readonly max: number
}

interface LoadResult {
  readonly requests: number
  readonly errors: number
  readonly timeouts: number
  readonly non2xx: number
  readonly rps: number
  readonly latency: { readonly p50: number; readonly p99: number }
  readonly endpoints: Record<string, EndpointFigures>
}

const quantile = (sorted: readonly number[], q: number): number =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!

/** The child: autocannon with a per-request weighted pick, timing each response per endpoint. */
async function runLoad(config: LoadConfig): Promise<void> {
  // autocannon ships no types: required, and given the one signature used here
  const autocannon = createRequire(import.meta.url)('autocannon') as (
    opts: Record<string, unknown>,
  ) => Promise<Record<string, unknown>>
  const total = config.mix.reduce((sum, m) => sum + m.weight, 0)
  const latencies = new Map<string, number[]>(config.mix.map((m) => [m.tag, []]))
  const non2xx = new Map<string, number>(config.mix.map((m) => [m.tag, 0]))
  const non2xxAt = new Map<string, number[]>(config.mix.map((m) => [m.tag, []]))
  const statuses = new Map<string, Record<string, number>>(config.mix.map((m) => [m.tag, {}]))
  interface Context {
    tag?: string
    started?: number
  }
  const result = await autocannon({
    url: config.url,
    connections: config.connections,
    duration: config.seconds,
    timeout: 10,
    requests: [
      {
        method: 'GET',
        setupRequest: (req: Record<string, unknown>, context: Context) => {
          let pick = Math.random() * total
          let mix = config.mix[0]!
          for (const m of config.mix) {
            mix = m
            if (pick < m.weight) break
            pick -= m.weight
          }
          context.tag = mix.tag
          context.started = performance.now()
          return { ...req, path: mix.paths[Math.floor(Math.random() * mix.paths.length)] }
        },
        onResponse: (status: number, _body: unknown, context: Context) => {
          const tag = context.tag ?? '?'
          latencies.get(tag)?.push(performance.now() - (context.started ?? performance.now()))
          const seen = statuses.get(tag)
          if (seen) seen[status] = (seen[status] ?? 0) + 1
          if (status < 200 || status >= 300) {
            non2xx.set(tag, (non2xx.get(tag) ?? 0) + 1)
            non2xxAt.get(tag)?.push(Date.now())
          }
        },
      },
    ],
  })
  const endpoints: Record<string, EndpointFigures> = {}
  for (const [tag, times] of latencies) {
    const sorted = times.sort((a, b) => a - b)
    endpoints[tag] = {
      count: sorted.length,
      non2xx: non2xx.get(tag) ?? 0,
      non2xxAt: non2xxAt.get(tag) ?? [],
      statuses: statuses.get(tag) ?? {},
      p50: quantile(sorted, 0.5),
      p99: quantile(sorted, 0.99),
      max: sorted.at(-1) ?? Number.NaN,
    }
  }
  const r = result as {
    requests: { total: number; average: number }
    latency: { p50: number; p99: number }
    errors: number
    timeouts: number
    non2xx: number
  }
  const out: LoadResult = {
    requests: r.requests.total,
    errors: r.errors,
    timeouts: r.timeouts,
    non2xx: r.non2xx,
    rps: r.requests.average,
    latency: { p50: r.latency.p50, p99: r.latency.p99 },
    endpoints,
  }
  process.stdout.write(`${JSON.stringify(out)}\n`)
}

/** Starts the child load; resolves with its figures. */
function startLoad(config: LoadConfig): Promise<LoadResult> {
  const child = spawn(
    process.execPath,
    [...process.execArgv, fileURLToPath(import.meta.url), '--load', JSON.stringify(config)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  )
  let stdout = ''
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString()
  })
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`load process exited with ${code}: ${stdout}`))
      const line = stdout.trim().split('\n').at(-1) ?? '{}'
      resolve(JSON.parse(line) as LoadResult)
    })
  })
}

interface RssSample {
  readonly t: number
  readonly rss: number
  readonly heap: number
  readonly heapTotal: number
  readonly external: number
}

/** Samples this process's RSS and heap every second until stopped. */
function sampleMemory(): { stop: () => RssSample[] } {
  const started = performance.now()
  const samples: RssSample[] = []
  const take = (): void => {
    const m = process.memoryUsage()
    samples.push({
      t: (performance.now() - started) / 1000,
      rss: m.rss,
      heap: m.heapUsed,
      heapTotal: m.heapTotal,
      external: m.external,
    })
  }
  take()
  const timer = setInterval(take, 1000)
  return {
    stop() {
      clearInterval(timer)
      take()
      return samples
    },
  }
}

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MB`

/** Heap and RSS after a full GC, between phases (never under load): a leak grows these, warm-up does not. */
function afterGc(label: string): void {
  v8.setFlagsFromString('--expose-gc')
  const gc = vm.runInNewContext('gc') as () => void
  gc()
  gc()
  const m = process.memoryUsage()
  console.log(`after a full GC ${label}: heap used ${mb(m.heapUsed)}, RSS ${mb(m.rss)}`)
}
const avg = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length)

function report(title: string, load: LoadResult, samples: readonly RssSample[]): void {
  const end = samples.at(-1)!.t
  const first = samples.filter((s) => s.t <= 10)
  const last = samples.filter((s) => s.t >= end - 10)
  const peak = Math.max(...samples.map((s) => s.rss))
  const growth = (avg(last.map((s) => s.rss)) / avg(first.map((s) => s.rss)) - 1) * 100
  console.log(`\n== ${title}`)
  console.log(
    `requests served ${load.requests} (${load.rps.toFixed(0)} req/s); errors ${load.errors}, timeouts ${load.timeouts}, non-2xx ${load.non2xx}`,
  )
  console.log(`all: p50 ${load.latency.p50} ms, p99 ${load.latency.p99} ms (autocannon)`)
  console.log('endpoint                      count   share  non2xx    p50 ms    p99 ms    max ms')
  for (const [tag, e] of Object.entries(load.endpoints)) {
    console.log(
      `${tag.padEnd(28)}${String(e.count).padStart(7)}${`${((e.count / Math.max(1, load.requests)) * 100).toFixed(1)}%`.padStart(8)}${String(e.non2xx).padStart(8)}${e.p50.toFixed(1).padStart(10)}${e.p99.toFixed(1).padStart(10)}${e.max.toFixed(0).padStart(10)}`,
    )
  }
  console.log(
    `server heap committed first ${mb(avg(first.map((s) => s.heapTotal)))}, last ${mb(avg(last.map((s) => s.heapTotal)))}; external first ${mb(avg(first.map((s) => s.external)))}, last ${mb(avg(last.map((s) => s.external)))}`,
  )
  console.log(
    `server RSS: peak ${mb(peak)}; first 10 s avg ${mb(avg(first.map((s) => s.rss)))}, last 10 s avg ${mb(avg(last.map((s) => s.rss)))} (growth ${growth.toFixed(1)}%); heap used first ${mb(avg(first.map((s) => s.heap)))}, last ${mb(avg(last.map((s) => s.heap)))}`,
  )
}

async function main(): Promise<void> {
  const [{ benchMarket, ensurePlanned, flag }, { createLogger }, { startServer }] = await Promise.all([
    import('./support.js'),
    import('../src/logger.js'),
    import('../src/server.js'),
  ])
  const seconds = flag('seconds', 60)
  const connections = flag('connections', 100)
  const stocks = flag('stocks', 5000)
  const days = flag('days', 250)
  const chainProcess = !process.argv.includes('--chain-in-process')
  const root = path.resolve('var/bench', `soak-${stocks}x${days}`)
  const market = await benchMarket({ PG_DATA_DIR: path.join(root, 'pg'), PLAN_DATA_DIR: path.join(root, 'plan') })
  const { store, calendar } = market
  const signal = new AbortController().signal
  const [previous, last] = calendar.slice(-2) as [string, string]

  await ensurePlanned(market, [previous, last], signal)
  await market.services.close()

  /** Codes of a day's tier table: lists of `size` codes, drawn across the ranks. */
  async function codeLists(date: string, size: number, count: number): Promise<string[]> {
    const rows = await store.db
      .selectFrom('tier_scores')
      .select('code')
      .where('trade_date', '=', date)
      .orderBy('rank')
      .execute()
    const codes = rows.map((r) => r.code)
    let seed = size * 7919
    const next = (): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed / 2 ** 31
    }
    return Array.from({ length: count }, () =>
      Array.from({ length: size }, () => codes[Math.floor(next() * codes.length)]!).join(','),
    )
  }
  const verdictLists = await codeLists(previous, 20, 200)
  const logicLists = await codeLists(previous, 10, 200)

  const log = createLogger({ logLevel: 'warn' })
  const server = await startServer({ ...market.config, port: 0, host: '127.0.0.1' }, log, store)
  const { services } = server
  const url = server.url
  const mix: Mix[] = [
    { tag: 'GET /plan (cached)', weight: 70, paths: ['/plan'] },
    { tag: 'GET /plan?nocache=1', weight: 10, paths: ['/plan?nocache=1'] },
    { tag: 'GET /plan/verdict (20)', weight: 10, paths: verdictLists.map((c) => `/plan/verdict?codes=${c}`) },
    { tag: 'GET /logic_state (10)', weight: 5, paths: logicLists.map((c) => `/logic_state?codes=${c}`) },
    { tag: 'GET /health', weight: 5, paths: ['/health'] },
  ]
  const latestServed = async (): Promise<{ date: string; plan_source: string; generated_at: string }> =>
    (await (await fetch(`${url}/plan`)).json()) as { date: string; plan_source: string; generated_at: string }

  console.log(`server ${url}; ${stocks} x ${days} market, planned ${previous} and ${last}`)
  console.log(
    `load: ${connections} connections, ${seconds} s per phase, one autocannon process, per-request weighted mix`,
  )
  console.log(`warm-up: /plan serves ${(await latestServed()).date}`)

  afterGc('before phase 1')
  // phase 1: steady state
  let memory = sampleMemory()
  const steady = await startLoad({ url, seconds, connections, mix })
  report(`phase 1: ${seconds} s steady`, steady, memory.stop())
  afterGc('after phase 1')

  if (process.argv.includes('--kill-db')) {
    const restarted = await killDbPhase({
      url,
      seconds,
      connections,
      mix,
      pgDataDir: market.config.pgDataDir,
      downSeconds: flag('down', 10),
    })
    afterGc('after the database kill')
    await server.close()
    await restarted.stop() // the one this bench started again (the store stops only the postmaster it started)
    return
  }

  // phase 2: take the last day back, then chain it under load
  await store.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('stock_daily').where('trade_date', '=', last).execute()
    await trx.deleteFrom('tier_scores').where('trade_date', '=', last).execute()
    await trx.deleteFrom('builds').where('trade_date', '=', last).execute()
  })
  for (const file of [
    services.files.snapshotPath(last),
    services.files.planPath(last),
    services.files.poolPath(last),
  ]) {
    await rm(file, { force: true })
  }
  services.latestDate.invalidate()
  // as if this server had never served the day: its cached plan for the date would outlive the rows otherwise
  services.plans.forget()
  const back = await latestServed()
  console.log(`\nphase 2: took ${last} back; /plan now serves ${back.date} (${back.plan_source})`)

  memory = sampleMemory()
  const loadStarted = performance.now()
  const sinceLoad = (): string => `${((performance.now() - loadStarted) / 1000).toFixed(1)} s`
  const load = startLoad({ url, seconds, connections, mix })
  await new Promise((r) => setTimeout(r, (seconds * 1000) / 3))
  const steps: string[] = []
  console.log(`chain ${last} starts at ${sinceLoad()} (${chainProcess ? 'child process' : 'in process'})`)
  // watch /plan from the start of the chain: when does it first serve the new date, and from where
  let firstServed: string | undefined
  let watching = true
  const watcher = (async () => {
    while (watching) {
      const plan = await latestServed().catch(() => undefined)
      if (plan?.date === last && !firstServed) {
        firstServed = `${sinceLoad()} (plan_source ${plan.plan_source}, generated_at ${plan.generated_at})`
      }
      await new Promise((r) => setTimeout(r, 100))
    }
  })()
  const chainStarted = performance.now()
  if (chainProcess) {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, ['bin/stockplan.js', 'chain', '--date', last], {
        env: {
          ...process.env,
          DATABASE_URL: store.url,
          PLAN_DATA_DIR: market.config.planDataDir,
          LOG_LEVEL: 'warn',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      child.stderr.on('data', (c: Buffer) => {
        for (const line of c.toString().split('\n')) if (line.startsWith('chain:')) steps.push(`${sinceLoad()} ${line}`)
      })
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`stockplan chain exited with ${code}`))))
    })
  } else {
    await services.chain({ date: last }, signal, {
      onStep: (step, event) => {
        steps.push(`${sinceLoad()} ${step} ${event}`)
      },
    })
  }
  const chainDone = performance.now()
  console.log(
    `chain ${last} done at ${sinceLoad()} in ${((chainDone - chainStarted) / 1000).toFixed(1)} s; steps: ${steps.join(', ')}`,
  )
  let polls = 0
  let served = await latestServed()
  while (served.date !== last) {
    polls++
    await new Promise((r) => setTimeout(r, 20))
    served = await latestServed()
  }
  console.log(
    `/plan serves ${last} ${((performance.now() - chainDone) / 1000).toFixed(3)} s after the chain completed (${polls} polls; plan_source ${served.plan_source}, generated_at ${served.generated_at})`,
  )
  console.log(`/plan first served ${last} at ${firstServed ?? 'n/a'}`)
  const changed = await load
  watching = false
  await watcher
  report(`phase 2: ${seconds} s with a chain for ${last} in the middle`, changed, memory.stop())
  const after = await latestServed()
  console.log(
    `after the load: /plan serves ${after.date} (plan_source ${after.plan_source}, generated_at ${after.generated_at})`,
  )

  afterGc('after phase 2')
  await server.close()
}

/** Phase 2 with --kill-db: the postmaster killed under load and started again; errors timed against the outage. */
async function killDbPhase(args: {
  url: string
  seconds: number
  connections: number
  mix: Mix[]
  pgDataDir: string
  downSeconds: number
}): Promise<{ stop(): Promise<void> }> {
  const [{ readPostmasterPid, startEmbeddedPostgres }, { createLogger }] = await Promise.all([
    import('../src/storage/embedded-postgres.js'),
    import('../src/logger.js'),
  ])
  const { url, seconds, connections, mix, pgDataDir, downSeconds } = args
  const before = await readPostmasterPid(pgDataDir)
  if (!before) throw new Error(`--kill-db needs the embedded database (no postmaster.pid in ${pgDataDir})`)
  const memory = sampleMemory()
  const loadStarted = Date.now()
  const since = (t: number): string => `${((t - loadStarted) / 1000).toFixed(1)} s`
  const load = startLoad({ url, seconds, connections, mix })
  await new Promise((r) => setTimeout(r, (seconds * 1000) / 3))
  process.kill(before.pid, 'SIGKILL')
  const killedAt = Date.now()
  console.log(`\nphase 2 (--kill-db): postmaster ${before.pid} killed at ${since(killedAt)}`)
  const healthy = async (): Promise<boolean> =>
    ((await (await fetch(`${url}/health`)).json().catch(() => ({}))) as { ok?: boolean }).ok === true
  // the server's supervisor restarts it; the bench steps in only if it is still down after --down seconds
  let backAt = 0
  while (backAt === 0 && Date.now() - killedAt < downSeconds * 1000) {
    if (await healthy()) backAt = Date.now()
    else await new Promise((r) => setTimeout(r, 50))
  }
  const log = createLogger({ logLevel: 'warn' })
  let restarted: Awaited<ReturnType<typeof startEmbeddedPostgres>> | undefined
  while (!restarted) {
    restarted = await startEmbeddedPostgres(pgDataDir, log, { port: before.port }).catch(async () => {
      await new Promise((r) => setTimeout(r, 200)) // the killed one's backends still detaching
      return undefined
    })
  }
  while (backAt === 0) {
    if (await healthy()) backAt = Date.now()
    else await new Promise((r) => setTimeout(r, 50))
  }
  const after = await readPostmasterPid(pgDataDir)
  console.log(
    `/health ok again at ${since(backAt)}, ${((backAt - killedAt) / 1000).toFixed(2)} s after the kill; ` +
      `postmaster ${after?.pid} on port ${after?.port} (${restarted.owned ? 'started by the bench' : 'started by the server'})`,
  )
  const result = await load
  report(`phase 2: ${seconds} s with the database killed and restarted in the middle`, result, memory.stop())
  console.log('non-2xx by endpoint: while the store was down (kill to /health ok) / outside; statuses')
  for (const [tag, e] of Object.entries(result.endpoints)) {
    const inside = e.non2xxAt.filter((t) => t >= killedAt && t <= backAt + 1000).length
    console.log(
      `${tag.padEnd(28)}${String(inside).padStart(7)} /${String(e.non2xx - inside).padStart(5)}   ${JSON.stringify(e.statuses)}`,
    )
  }
  console.log(`server process: alive (it is this process); socket errors ${result.errors}, timeouts ${result.timeouts}`)
  return restarted
}

const loadArg = process.argv.indexOf('--load')
if (loadArg >= 0) await runLoad(JSON.parse(process.argv[loadArg + 1]!) as LoadConfig)
else await main()
