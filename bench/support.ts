import { type ChildProcess, execFile, fork } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { openSync } from 'node:fs'
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { sql } from 'kysely'
import pg from 'pg'
import type { Logger } from 'pino'
import { createServices, type Services } from '../src/compose.js'
import { type Config, loadConfig } from '../src/config.js'
import { generateDemoMarket } from '../src/jobs/demo/generate.js'
import { importDirectory } from '../src/jobs/import/import-job.js'
import { silentProgress } from '../src/jobs/progress.js'
import { createLogger } from '../src/logger.js'
import { type RunningPostgres, startEmbeddedPostgres } from '../src/storage/embedded-postgres.js'
import { createImportStore } from '../src/storage/import.repository.js'
import { openStore, type Store } from '../src/storage/store.js'

const run = promisify(execFile)

export interface BenchMarket {
  readonly config: Config
  readonly store: Store
  readonly services: Services
  readonly lastDate: string
  readonly calendar: string[]
}

export function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? Number(process.argv[i + 1]) : fallback
}

/** `count` weekdays from `first` (UTC), as ISO dates: a synthesised market's trading days. */
export function isoWeekdays(count: number, first: string): string[] {
  const days: string[] = []
  for (let t = Date.parse(`${first}T00:00:00Z`); days.length < count; t += 86_400_000) {
    const weekday = new Date(t).getUTCDay()
    if (weekday !== 0 && weekday !== 6) days.push(new Date(t).toISOString().slice(0, 10))
  }
  return days
}

export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
export const p99 = (xs: number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))]!

export async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now()
  const value = await fn()
  return [value, performance.now() - started]
}

/** A bench's settings: its own embedded PostgreSQL and plan files under `root` (or BENCH_DATABASE_URL), warnings only. */
export function benchConfig(root: string, env: Record<string, string> = {}): Config {
  return loadConfig({
    ...process.env,
    LOG_LEVEL: 'warn',
    PG_DATA_DIR: path.join(root, 'pg'),
    PLAN_DATA_DIR: path.join(root, 'plan'),
    DATABASE_URL: process.env.BENCH_DATABASE_URL || '',
    ...env,
  })
}

/**
 * The full demo market (default 5000 stocks x 250 days, or the given defaults; --stocks/--days override) in its own embedded PostgreSQL under var/bench,
 * generated and imported once and reused by later runs (BENCH_DATABASE_URL points elsewhere instead).
 */
export async function benchMarket(
  env: Record<string, string> = {},
  defaults: { stocks: number; days: number } = { stocks: 5000, days: 250 },
): Promise<BenchMarket> {
  const stocks = flag('stocks', defaults.stocks)
  const days = flag('days', defaults.days)
  const root = path.resolve('var/bench', `${stocks}x${days}`)
  const config = benchConfig(root, env)
  const log = createLogger(config)
  const store = await openStore(config, log, { poolMax: 20 })
  const services = createServices(config, log, store, { listen: true })
  const marker = path.join(root, 'loaded.json')
  let lastDate = (JSON.parse(await readFile(marker, 'utf8').catch(() => '{}')) as { lastDate?: string }).lastDate
  if (!lastDate || (await services.market.latestBarDate()) !== lastDate) {
    console.log(`loading a ${stocks} x ${days} demo market (once) ...`)
    const dir = path.join(root, 'csv')
    const summary = await generateDemoMarket(dir, { stocks, days, seed: 42 }, silentProgress)
    const [, ms] = await timed(() =>
      importDirectory(
        { imports: createImportStore(store.pool), log, progress: silentProgress },
        { dir, format: 'native' },
        new AbortController().signal,
      ),
    )
    console.log(`imported in ${(ms / 1000).toFixed(1)} s`)
    lastDate = summary.lastDate
    await mkdir(root, { recursive: true })
    await writeFile(marker, JSON.stringify({ lastDate }))
  }
  const calendar = await services.market.calendar(lastDate)
  return { config, store, services, lastDate, calendar }
}

/** How a fresh demo market came to be: generation and import wall times, and the rows the import loaded. */
export interface DemoLoad {
  readonly generateMs: number
  readonly importMs: number
  readonly rows: number
}

/**
 * A new demo market in its own embedded PostgreSQL under `root` (deleted first), generated, imported and ready:
 * for benches that need a fresh market per size or seed rather than the one `benchMarket` keeps.
 */
export async function freshDemoStore(
  root: string,
  market: Parameters<typeof generateDemoMarket>[1],
): Promise<{ store: Store; services: Services; calendar: string[]; load: DemoLoad }> {
  await rm(root, { recursive: true, force: true })
  const config = benchConfig(root, { DATABASE_URL: '' })
  const log = createLogger(config)
  const store = await openStore(config, log)
  const dir = path.join(root, 'market')
  const [summary, generateMs] = await timed(() => generateDemoMarket(dir, market, silentProgress))
  const [imported, importMs] = await timed(() =>
    importDirectory(
      { imports: createImportStore(store.pool), log, progress: silentProgress },
      { dir, format: 'native' },
      new AbortController().signal,
    ),
  )
  const rows = imported.files.reduce((sum, f) => sum + f.rows, 0)
  const services = createServices(config, log, store)
  return {
    store,
    services,
    calendar: await services.market.calendar(summary.lastDate),
    load: { generateMs, importMs, rows },
  }
}

/** The store's database size in bytes (`pg_database_size`). */
export async function databaseBytes(store: Store): Promise<number> {
  const size = await sql<{ bytes: string }>`select pg_database_size(current_database())::text as bytes`.execute(
    store.db,
  )
  return Number(size.rows[0]!.bytes)
}

/** autocannon in its own process (so it does not share the server's event loop): requests per second. */
export async function autocannon(
  url: string,
  connections: number,
  seconds: number,
): Promise<{ rps: number; p99: number; errors: number }> {
  const { stdout } = await run('npx', ['autocannon', '-j', '-c', String(connections), '-d', String(seconds), url], {
    maxBuffer: 1 << 24,
  })
  const result = JSON.parse(stdout) as {
    requests: { average: number }
    latency: { p99: number }
    errors: number
    non2xx: number
  }
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx }
}

/** Runs the chain for each date whose plan was never written (reruns keep their stored plan). */
export async function ensurePlanned(market: BenchMarket, dates: readonly string[], signal: AbortSignal): Promise<void> {
  for (const date of dates) {
    const stored = await market.store.db
      .selectFrom('stock_daily')
      .select('code')
      .where('trade_date', '=', date)
      .limit(1)
      .execute()
    if (stored.length > 0) continue
    const [, ms] = await timed(() => market.services.chain({ date }, signal))
    console.log(`chain ${date}: ${(ms / 1000).toFixed(1)} s (setup)`)
  }
}

/** The query of a 1000-code lookup on the market's last date: its tier codes, padded with codes it does not list. */
export async function thousandCodeQuery(market: BenchMarket): Promise<{ query: string; tierCodes: number }> {
  const tier = await market.store.db
    .selectFrom('tier_scores')
    .select('code')
    .where('trade_date', '=', market.lastDate)
    .orderBy('code')
    .execute()
  const codes = tier.map((r) => r.code).slice(0, 1000)
  for (let n = 1; codes.length < 1000; n++) codes.push(`${String(900000 + n).padStart(6, '0')}.SH`)
  return { query: `codes=${codes.join(',')}&date=${market.lastDate}`, tierCodes: tier.length }
}

// a bench that fails half-way must not leave its servers holding their ports for the next run
const running = new Set<ChildProcess>()
process.once('exit', () => {
  for (const child of running) child.kill('SIGTERM')
})

/**
 * Starts a TypeScript entry point in its own node process (tsx loaded in-process, so the child's pid is the
 * server's own, for /proc) and waits until `ready` answers 200. stdout goes to the given file, else nowhere.
 */
export async function startProcess(
  script: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  options: { ready: string; stdout?: string; execArgv?: readonly string[] },
): Promise<ChildProcess> {
  // appended to: a server started again (a bench's fresh process per round) keeps the lines of the ones before it
  const out = options.stdout ? openSync(options.stdout, 'a') : 'ignore'
  const child = fork(script, args, {
    execArgv: ['--import', 'tsx', ...(options.execArgv ?? [])],
    env,
    stdio: ['ignore', out, 'inherit', 'ipc'],
  })
  running.add(child)
  child.once('exit', () => running.delete(child))
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}`)
    if (
      await fetch(options.ready).then(
        (r) => r.ok,
        () => false,
      )
    )
      return child
    await new Promise((r) => setTimeout(r, 100))
  }
  child.kill('SIGTERM')
  throw new Error(`${script} did not answer on ${options.ready}`)
}

/** Stops a child process started here and waits for it to exit. */
export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return
  const exited = new Promise((r) => child.once('exit', r))
  child.kill('SIGTERM')
  await exited
}

/** The service (`stockplan serve`) in its own process against a bench market, on the given port. */
export function startService(
  market: BenchMarket,
  port: number,
  options: { env?: NodeJS.ProcessEnv; stdout?: string; execArgv?: readonly string[] } = {},
): Promise<ChildProcess> {
  const env = {
    ...process.env,
    LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_URL: market.store.url,
    PLAN_DATA_DIR: market.config.planDataDir,
    PG_DATA_DIR: market.config.pgDataDir,
    ...options.env,
  }
  // BENCH_SERVICE_ROOT: another checkout's service (e.g. an export of main), for before/after in one run
  const root = process.env.BENCH_SERVICE_ROOT ?? '.'
  return startProcess(path.join(root, 'bin/stockplan.js'), ['serve'], env, {
    ready: `http://127.0.0.1:${port}/health`,
    stdout: options.stdout,
    execArgv: options.execArgv,
  })
}

export interface ScratchDatabase {
  readonly url: string
  close(): Promise<void>
}

/** A database of its own for one bench run: on BENCH_DATABASE_URL's server, else an embedded one in a temp dir. */
export async function openScratchDatabase(log: Logger): Promise<ScratchDatabase> {
  const server = process.env.BENCH_DATABASE_URL
  if (server) {
    const name = `stockplan_bench_${randomBytes(4).toString('hex')}`
    const admin = new pg.Client({ connectionString: server })
    await admin.connect()
    await admin.query(`create database ${name}`)
    await admin.end()
    const url = new URL(server)
    url.pathname = `/${name}`
    return {
      url: url.toString(),
      async close() {
        const client = new pg.Client({ connectionString: server })
        await client.connect()
        await client.query(`drop database if exists ${name} with (force)`)
        await client.end()
      },
    }
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), 'stockplan-bench-pg-'))
  await chmod(dir, 0o755)
  const running: RunningPostgres = await startEmbeddedPostgres(path.join(dir, 'pg'), log)
  return {
    url: running.url,
    async close() {
      await running.stop()
      await rm(dir, { recursive: true, force: true })
    },
  }
}
