import { chmod, mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { createLogger } from '../../src/logger.js'
import { createDb, type DbHandle } from '../../src/storage/db.js'
import { type RunningPostgres, startEmbeddedPostgres } from '../../src/storage/embedded-postgres.js'
import { migrateToLatest } from '../../src/storage/migrate.js'
import { type DemoMarket, seedDemoMarket } from './demo-market.js'
import type { TestDatabase } from './test-db.js'

const log = createLogger({ logLevel: 'silent' })

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

export async function seedCluster(options: { stocks: number; days: number; history: number; skipLast?: number }) {
  const root = await mkdtemp(path.join(os.tmpdir(), 'stockplan-faults-'))
  await chmod(root, 0o755)
  const dataDir = path.join(root, 'pg')
  let pg = await startEmbeddedPostgres(dataDir, log)
  let handle: DbHandle | undefined = createDb(pg.url, log)
  await migrateToLatest(handle.db)
  const demo = await seedDemoMarket(
    { ...handle, url: pg.url, name: 'stockplan', drop: async () => undefined } as TestDatabase,
    options,
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
          pg = await startEmbeddedPostgres(dataDir, log, { port: pg.port })
          cluster.pg = pg
          return
        } catch (err) {
          if (Date.now() > deadline) throw err
          await new Promise((r) => setTimeout(r, 300))
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

/** The postmaster and its backends, for freezing (SIGSTOP) or killing. */
export async function postmasterTree(dataDir: string): Promise<{ postmaster: number; all: number[] }> {
  const { readPostmasterPid } = await import('../../src/storage/embedded-postgres.js')
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
