import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { inject } from 'vitest'
import { createLogger } from '../../src/logger.js'
import { createDb, type Db, type DbHandle } from '../../src/storage/db.js'

export interface TestDatabase extends DbHandle {
  readonly db: Db
  readonly url: string
  readonly name: string
  drop(): Promise<void>
}

/**
 * How a test database is cloned. PostgreSQL's default since 15, WAL_LOG, writes every page of the template to the WAL;
 * FILE_COPY copies the files after a checkpoint, which costs little on a cluster without fsync. Measured over whole
 * runs, alternating: 11-15 s less PostgreSQL CPU a run (about 130 clones of templates up to 19 MB).
 */
export const CLONE_STRATEGY = 'strategy file_copy'

/** A fresh database cloned from `template` (the run's migrated one unless named); drop() destroys it. */
export async function createTestDatabase(template: string = inject('pgTemplate')): Promise<TestDatabase> {
  const adminUrl = inject('pgAdminUrl')
  const name = `t_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  try {
    await admin.query(`create database ${name} template ${template} ${CLONE_STRATEGY}`)
  } finally {
    await admin.end()
  }
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  const handle = createDb(url.toString(), createLogger({ logLevel: 'silent' }))
  return {
    ...handle,
    url: url.toString(),
    name,
    async drop() {
      await handle.db.destroy()
      const client = new pg.Client({ connectionString: adminUrl })
      await client.connect()
      try {
        await client.query(`drop database if exists ${name} with (force)`)
      } finally {
        await client.end()
      }
    },
  }
}
