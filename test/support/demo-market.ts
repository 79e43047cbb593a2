import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { inject } from 'vitest'
import { createServices, type Services } from '../../src/compose.js'
import { generateDemoMarket } from '../../src/jobs/demo/generate.js'
import { importDirectory } from '../../src/jobs/import/import-job.js'
import { silentProgress } from '../../src/jobs/progress.js'
import { createLogger } from '../../src/logger.js'
import { createDb } from '../../src/storage/db.js'
import { createImportStore } from '../../src/storage/import.repository.js'
import { testConfig } from './config.js'
import { oncePerRun } from './once-per-run.js'
import { CLONE_STRATEGY, createTestDatabase, type TestDatabase } from './test-db.js'

export interface DemoMarket {
  readonly dataDir: string
  readonly planDataDir: string
  /** Trading days of the market, ascending. */
  readonly calendar: string[]
  /** The days the chain ran for, ascending. */
  readonly planned: string[]
  readonly services: Services
  readonly env: Record<string, string>
  cleanup(): Promise<void>
}

export interface DemoOptions {
  stocks?: number
  days?: number
  seed?: number
  history?: number
  skipLast?: number
}

export interface Seeded {
  readonly calendar: string[]
  readonly planned: string[]
}

const silentLog = createLogger({ logLevel: 'silent' })

/**
 * 28 chain days over 200 stocks: enough for realised 5-day outcomes and learned weights. The tests that need weeks of
 * plan days share this one variant, so the run builds its template once (a variant costs ~0.3 s of CPU a chain day);
 * a test that needs a horizon without outcomes asks for a window of the last plan days.
 */
export const WEEKS_OF_PLANS = { stocks: 200, days: 90, history: 28 } as const

/** The market a variant is cut from, defaults applied: 400 stocks × 90 days of seed 7. */
const marketOf = (o: DemoOptions) => ({ stocks: o.stocks ?? 400, days: o.days ?? 90, seed: o.seed ?? 7 })

/** Generates, imports and runs the chain into the database `t`, with market and plan files under `root`. */
export async function seedInto(
  t: Pick<TestDatabase, 'db' | 'pool'>,
  root: string,
  options: DemoOptions,
): Promise<Seeded> {
  const lastDate = await importMarketInto(t, root, options)
  return chainInto(t, root, options, lastDate)
}

/** Generates the market's files under `root/market` and imports them into `t`; returns the last trading day. */
async function importMarketInto(t: Pick<TestDatabase, 'pool'>, root: string, options: DemoOptions): Promise<string> {
  const dataDir = path.join(root, 'market')
  const summary = await generateDemoMarket(dataDir, marketOf(options), silentProgress)
  await importDirectory(
    { imports: createImportStore(t.pool), log: silentLog, progress: silentProgress },
    { dir: dataDir, format: 'native' },
    new AbortController().signal,
  )
  return summary.lastDate
}

/** Runs the chain in `t` for the variant's planned days (the last `history` before `skipLast`), plan files in `root`. */
async function chainInto(
  t: Pick<TestDatabase, 'db' | 'pool'>,
  root: string,
  options: DemoOptions,
  lastDate: string,
): Promise<Seeded> {
  const config = testConfig({ PLAN_DATA_DIR: path.join(root, 'plan') })
  const services = createServices(config, silentLog, t)
  try {
    const calendar = await services.market.calendar(lastDate)
    const end = calendar.length - (options.skipLast ?? 0)
    const planned = calendar.slice(Math.max(0, end - (options.history ?? 3)), end)
    for (const date of planned) await services.chain({ date }, new AbortController().signal)
    return { calendar, planned }
  } finally {
    await services.close()
  }
}

const marketKey = (o: DemoOptions): string => {
  const { stocks, days, seed } = marketOf(o)
  return `${stocks}_${days}_${seed}`
}

export const variantKey = (o: DemoOptions): string => `demo_${marketKey(o)}_${o.history ?? 3}_${o.skipLast ?? 0}`

/** A database and files built once per test run by the first file that asks (the others wait on an advisory lock). */
async function ensureDatabase<T>(
  name: string,
  from: string,
  build: (handle: Pick<TestDatabase, 'db' | 'pool'>, root: string) => Promise<T>,
): Promise<{ root: string; built: T }> {
  const root = path.join(inject('demoCacheDir'), name)
  // the marker lies beside the files, so no clone copies it
  const built = await oncePerRun(name, `${root}.json`, async (admin) => {
    await rm(root, { recursive: true, force: true })
    await mkdir(root, { recursive: true })
    const building = `${name}_building`
    await admin.query(`drop database if exists ${building} with (force)`)
    await admin.query(`create database ${building} template ${from} ${CLONE_STRATEGY}`)
    const url = new URL(inject('pgAdminUrl'))
    url.pathname = `/${building}`
    const handle = createDb(url.toString(), silentLog)
    let value: T
    try {
      value = await build(handle, root)
    } finally {
      await handle.db.destroy()
    }
    await admin.query(`drop database if exists ${name}`)
    // a backend of the pool just ended may not have exited yet, and a rename refuses a database anyone is using
    await admin.query('select pg_terminate_backend(pid, 5000) from pg_stat_activity where datname = $1', [building])
    await admin.query(`alter database ${building} rename to ${name}`)
    return value
  })
  return { root, built }
}

/**
 * The variant's template database and files, cloned by every file that asks for it. A variant is built from its
 * market's template (generated and imported once per run, whatever the history), so only the chain runs per variant.
 */
async function ensureTemplate(options: DemoOptions): Promise<{ name: string; root: string; seeded: Seeded }> {
  const market = `demo_market_${marketKey(options)}`
  const imported = await ensureDatabase(market, inject('pgTemplate'), (handle, root) =>
    importMarketInto(handle, root, options),
  )
  const name = variantKey(options)
  const variant = await ensureDatabase(name, market, async (handle, root) => {
    await cp(path.join(imported.root, 'market'), path.join(root, 'market'), { recursive: true })
    return chainInto(handle, root, options, imported.built)
  })
  return { name, root: variant.root, seeded: variant.built }
}

/**
 * A fresh test database holding a small deterministic demo market, with the chain run for its last `history` days
 * (or up to `skipLast` days before the end): a clone of the variant's template, so each file gets its own copy it
 * may write to. Plan and market files live in a temp dir of this caller's own.
 */
export async function createDemoDatabase(options: DemoOptions = {}): Promise<[TestDatabase, DemoMarket]> {
  const template = await ensureTemplate(options)
  const t = await createTestDatabase(template.name)
  return [t, await openDemoMarket(t, template.root, template.seeded)]
}

/** A demo market whose rows are already in `t`: its files are copied from `filesFrom` into a temp dir of its own. */
export async function openDemoMarket(t: TestDatabase, filesFrom: string, seeded: Seeded): Promise<DemoMarket> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'stockplan-demo-'))
  await cp(filesFrom, root, { recursive: true })
  return demoMarketAt(t, root, seeded)
}

function demoMarketAt(t: TestDatabase, root: string, seeded: Seeded): DemoMarket {
  const env = { PLAN_DATA_DIR: path.join(root, 'plan') }
  const config = testConfig(env)
  const services = createServices(config, createLogger(config), t)
  return {
    dataDir: path.join(root, 'market'),
    planDataDir: env.PLAN_DATA_DIR,
    calendar: seeded.calendar,
    planned: seeded.planned,
    services,
    env,
    async cleanup() {
      await services.close()
      await rm(root, { recursive: true, force: true })
    },
  }
}
