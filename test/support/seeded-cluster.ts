import { execFile } from 'node:child_process'
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { Client } from 'pg'
import { inject } from 'vitest'
import { createLogger } from '../../src/logger.js'
import { createDb, type DbHandle } from '../../src/storage/db.js'
import {
  isProcessAlive,
  type RunningPostgres,
  readPostmasterPid,
  startEmbeddedPostgres,
} from '../../src/storage/embedded-postgres.js'
import { migrateToLatest } from '../../src/storage/migrate.js'
import { type DemoMarket, openDemoMarket, type Seeded, seedInto, variantKey } from './demo-market.js'
import { oncePerRun } from './once-per-run.js'
import { relaxDurability } from './relaxed-durability.js'
import type { TestDatabase } from './test-db.js'

const log = createLogger({ logLevel: 'silent' })
const execFileAsync = promisify(execFile)

/** A demo market in its own embedded cluster, which a fault test may kill, freeze or restart. */
export interface SeededCluster {
  readonly root: string
  readonly dataDir: string
  readonly demo: DemoMarket
  pg: RunningPostgres
  /** Starts the cluster again on its port, retrying while a killed one's backends still detach. */
  restart(): Promise<void>
  /** Closes the test's own connections (before handing the cluster to a server process). */
  release(): Promise<void>
  cleanup(): Promise<void>
}

export interface ClusterOptions {
  stocks: number
  days: number
  history: number
  skipLast?: number
}

interface ClusterTemplate {
  /** A stopped, migrated and seeded data directory. */
  readonly dataDir: string
  /** The demo market's market and plan files. */
  readonly files: string
  readonly seeded: Seeded
}

/**
 * The variant's seeded cluster, built once per test run (initdb, migrate, generate, import, chain) and stopped;
 * each fault test gets a copy of its data directory, so it may kill or freeze its own cluster.
 */
async function ensureClusterTemplate(options: ClusterOptions): Promise<ClusterTemplate> {
  const key = `cluster_${variantKey(options)}`
  const cacheDir = inject('demoCacheDir')
  await chmod(cacheDir, 0o755) // the cluster's OS user (when we are root) must reach its data directory
  const root = path.join(cacheDir, key)
  const dataDir = path.join(root, 'pg')
  const files = path.join(root, 'demo')
  const seeded = await oncePerRun(key, `${root}.json`, async () => {
    await rm(root, { recursive: true, force: true })
    await mkdir(files, { recursive: true })
    await chmod(root, 0o755)
    const pg = await startEmbeddedPostgres(dataDir, log)
    try {
      // ALTER SYSTEM writes postgresql.auto.conf, so every copy of the data directory starts relaxed too
      const admin = new Client({ connectionString: pg.url })
      await admin.connect()
      await relaxDurability(admin).finally(() => admin.end())
      const handle = createDb(pg.url, log)
      try {
        await migrateToLatest(handle.db)
        return await seedInto(handle, files, options)
      } finally {
        await handle.db.destroy()
      }
    } finally {
      await pg.stop()
    }
  })
  return { dataDir, files, seeded }
}

export async function seedCluster(options: ClusterOptions): Promise<SeededCluster> {
  const template = await ensureClusterTemplate(options)
  const root = await mkdtemp(path.join(os.tmpdir(), 'stockplan-faults-'))
  await chmod(root, 0o755)
  const dataDir = path.join(root, 'pg')
  await execFileAsync('cp', ['-a', template.dataDir, dataDir]) // -a: the cluster's owner and modes too
  let pg = await startEmbeddedPostgres(dataDir, log)
  let handle: DbHandle | undefined = createDb(pg.url, log)
  const demo = await openDemoMarket(
    { ...handle, url: pg.url, name: 'stockplan', drop: async () => undefined } as TestDatabase,
    template.files,
    template.seeded,
  )
  const cluster: SeededCluster = {
    root,
    dataDir,
    demo,
    pg,
    async restart() {
      const deadline = Date.now() + 30_000
      for (;;) {
        try {
          await removeStalePidFile(dataDir)
          pg = await startEmbeddedPostgres(dataDir, log, { port: pg.port })
          cluster.pg = pg
          return
        } catch (err) {
          if (Date.now() > deadline) throw err
          await new Promise((r) => setTimeout(r, 100))
        }
      }
    },
    async release() {
      await demo.services.close()
      await handle?.db.destroy()
      handle = undefined
    },
    async cleanup() {
      await cluster.release().catch(() => undefined)
      await demo.cleanup().catch(() => undefined)
      await cluster.pg.stop().catch(() => undefined)
      await rm(root, { recursive: true, force: true })
    },
  }
  return cluster
}

/**
 * A killed postmaster stays a zombie until init reaps it, which this sandbox's init does only every second or two;
 * PostgreSQL takes the zombie's pid in postmaster.pid for a live postmaster and refuses to start. A pid file naming
 * a dead (or zombie) process is stale, so it goes; a live postmaster's is kept.
 */
async function removeStalePidFile(dataDir: string): Promise<void> {
  const stale = await readPostmasterPid(dataDir)
  if (stale && !isProcessAlive(stale.pid)) await rm(path.join(dataDir, 'postmaster.pid'), { force: true })
}

/** The postmaster and its backends, for freezing (SIGSTOP) or killing. */
export async function postmasterTree(dataDir: string): Promise<{ postmaster: number; all: number[] }> {
  const { readdir, readFile } = await import('node:fs/promises')
  const pid = await readPostmasterPid(dataDir)
  if (!pid) throw new Error(`no postmaster.pid in ${dataDir}`)
  const children: number[] = []
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '')
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
    if (ppid === pid.pid) children.push(Number(name))
  }
  return { postmaster: pid.pid, all: [pid.pid, ...children] }
}
