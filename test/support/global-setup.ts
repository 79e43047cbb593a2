import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import type { TestProject } from 'vitest/node'
import { createLogger } from '../../src/logger.js'
import { createDb } from '../../src/storage/db.js'
import { type RunningPostgres, startEmbeddedPostgres } from '../../src/storage/embedded-postgres.js'
import { migrateToLatest } from '../../src/storage/migrate.js'
import { cheapenLogins, relaxDurability } from './relaxed-durability.js'

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string
    pgTemplate: string
    /** Where the demo-market templates keep their market and plan files (see demo-market.ts). */
    demoCacheDir: string
  }
}

export const TEMPLATE_DB = 'stockplan_test_template'

/** On a shared server (TEST_DATABASE_URL) the demo templates of this run are dropped at the end. */
async function dropDemoTemplates(adminUrl: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  try {
    const { rows } = await admin.query<{ datname: string }>(
      "select datname from pg_database where datname like 'demo\\_%'",
    )
    for (const { datname } of rows) await admin.query(`drop database if exists ${datname} with (force)`)
  } finally {
    await admin.end()
  }
}

/**
 * One PostgreSQL for the whole run: the embedded one in a fresh temp dir, or the server named by
 * TEST_DATABASE_URL (CI's PostgreSQL 15 leg). A migrated template database is cloned per test file.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const log = createLogger({ logLevel: 'warn' })
  let embedded: RunningPostgres | undefined
  let tempDir: string | undefined
  let adminUrl = process.env.TEST_DATABASE_URL
  if (!adminUrl) {
    tempDir = await mkdtemp(path.join(os.tmpdir(), 'stockplan-test-pg-'))
    await import('node:fs/promises').then((fs) => fs.chmod(tempDir!, 0o755))
    embedded = await startEmbeddedPostgres(path.join(tempDir, 'pg'), log)
    adminUrl = embedded.url
  }
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  if (embedded) {
    await relaxDurability(admin)
    await cheapenLogins(admin, decodeURIComponent(new URL(adminUrl).password))
  }
  await admin.query(`drop database if exists ${TEMPLATE_DB}`)
  await admin.query(`create database ${TEMPLATE_DB}`)
  await admin.end()
  const templateUrl = new URL(adminUrl)
  templateUrl.pathname = `/${TEMPLATE_DB}`
  const handle = createDb(templateUrl.toString(), log)
  await migrateToLatest(handle.db)
  await handle.db.destroy()

  project.provide('pgAdminUrl', adminUrl)
  project.provide('pgTemplate', TEMPLATE_DB)
  const demoCacheDir = await mkdtemp(path.join(os.tmpdir(), 'stockplan-demo-templates-'))
  project.provide('demoCacheDir', demoCacheDir)
  return async () => {
    await rm(demoCacheDir, { recursive: true, force: true })
    if (!embedded) await dropDemoTemplates(adminUrl)
    await embedded?.stop()
    if (tempDir) await rm(tempDir, { recursive: true, force: true })
  }
}
