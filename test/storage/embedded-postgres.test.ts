import { execFile } from 'node:child_process'
import { chmod, mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from '../../src/logger.js'
import { type RunningPostgres, readPostmasterPid, startEmbeddedPostgres } from '../../src/storage/embedded-postgres.js'

const run = promisify(execFile)

describe('embedded PostgreSQL', () => {
  let root: string
  let dataDir: string
  let first: RunningPostgres
  const log = createLogger({ logLevel: 'silent' })

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'stockplan-embedded-'))
    await chmod(root, 0o755)
    dataDir = path.join(root, 'pg')
    first = await startEmbeddedPostgres(dataDir, log)
  })
  afterAll(async () => {
    await first?.stop()
    await rm(root, { recursive: true, force: true })
  })

  it('starts on a loopback port recorded in postmaster.pid and owns the server', async () => {
    expect(first.owned).toBe(true)
    expect(first.url).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/stockplan$/)
    expect((await readPostmasterPid(dataDir))?.port).toBe(first.port)
  })

  it('lets a second start in this process join the running server without owning it', async () => {
    const second = await startEmbeddedPostgres(dataDir, log)
    expect(second).toMatchObject({ owned: false, port: first.port })
    await second.stop() // a joiner's stop leaves the server running
    expect((await readPostmasterPid(dataDir))?.port).toBe(first.port)
  })

  it('lets another process (a CLI command) find and use the same server', async () => {
    const { stdout } = await run(process.execPath, ['bin/stockplan.js', 'db', 'status'], {
      env: { ...process.env, PG_DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'silent' },
    })
    expect(stdout).toContain(`127.0.0.1:${first.port}/stockplan (embedded)`)
    expect(stdout).toMatch(/applied\s+0001-initial/)
    expect((await readPostmasterPid(dataDir))?.port).toBe(first.port)
  })

  it('keeps data across a stop and a start', async () => {
    const pg = await import('pg')
    const client = new pg.default.Client({ connectionString: first.url })
    await client.connect()
    await client.query('create table if not exists kept (v int); insert into kept values (42)')
    await client.end()
    await first.stop()
    expect(await readPostmasterPid(dataDir)).toBeUndefined()
    first = await startEmbeddedPostgres(dataDir, log)
    const again = new pg.default.Client({ connectionString: first.url })
    await again.connect()
    expect((await again.query('select v from kept')).rows).toEqual([{ v: 42 }])
    await again.end()
  })
})
