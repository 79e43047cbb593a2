import { execFile } from 'node:child_process'
import { chmod, chown, mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config.js'
import { createLogger } from '../../src/logger.js'
import {
  freePort,
  PASSWORD_FILE,
  type RunningPostgres,
  readPostmasterPid,
  startEmbeddedPostgres,
} from '../../src/storage/embedded-postgres.js'
import { openStore } from '../../src/storage/store.js'
import { captureLog } from '../support/log-capture.js'
import { asOtherUser, connectAs } from './other-user.js'

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
    expect(first.url).toMatch(/^postgres:\/\/postgres:[\w-]{32}@127\.0\.0\.1:\d+\/stockplan$/)
    expect((await readPostmasterPid(dataDir))?.port).toBe(first.port)
  })

  it('is locked to the service: no trust or replication line, and another OS user can neither read the secret nor connect', async () => {
    const hba = await readFile(path.join(dataDir, 'pg_hba.conf'), 'utf8')
    const rules = hba.split('\n').filter((l) => l.trim() !== '' && !l.trim().startsWith('#'))
    expect(rules.length).toBeGreaterThan(0)
    for (const rule of rules) expect(rule).toMatch(/^host\s+all\s+all\s+\S+\s+scram-sha-256$/)
    const secret = path.join(dataDir, PASSWORD_FILE)
    expect((await stat(secret)).mode & 0o077).toBe(0)

    const nobody = await asOtherUser('nobody', secret, first.port)
    expect(nobody.read).toMatch(/EACCES/)
    expect(nobody.connect).toMatch(/password/)
    // the service's own user without the secret is refused too: no address trusts anyone
    expect(await connectAs(first.port, undefined)).toMatch(/password/)
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

  it('starts on PG_PORT when it is set', async () => {
    await first.stop()
    const port = await freePort()
    const config = loadConfig({ PG_DATA_DIR: dataDir, PG_PORT: String(port) })
    expect(config.pgPort).toBe(port)
    const store = await openStore(config, log, { migrate: false })
    try {
      expect(store.url).toContain(`@127.0.0.1:${port}/`)
      expect((await readPostmasterPid(dataDir))?.port).toBe(port)
    } finally {
      await store.close()
    }
    expect(() => loadConfig({ PG_PORT: '70000' })).toThrow('PG_PORT must be between 1 and 65535, got 70000')
    first = await startEmbeddedPostgres(dataDir, log)
  })
})

async function serverUser(): Promise<{ uid?: number; gid?: number }> {
  const uid = Number((await run('id', ['-u', 'stockplan-pg'])).stdout.trim())
  const gid = Number((await run('id', ['-g', 'stockplan-pg'])).stdout.trim())
  return { uid, gid }
}

describe('an embedded cluster an older version initialised with trust', () => {
  let root: string
  let dataDir: string
  let started: RunningPostgres | undefined

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'stockplan-trust-'))
    await chmod(root, 0o755)
    dataDir = path.join(root, 'pg')
    // what the launcher did before: initdb --auth=trust as the server's user
    const bins = (await import(`@embedded-postgres/${os.platform()}-${os.arch()}`)) as { initdb: string }
    // as root the server runs as stockplan-pg (the first describe's start created it); otherwise as this user
    const asServer = process.getuid?.() === 0 ? await serverUser() : {}
    await mkdir(dataDir, { mode: 0o700 })
    if (asServer.uid !== undefined) await chown(dataDir, asServer.uid, asServer.gid ?? asServer.uid)
    await run(
      bins.initdb,
      [`--pgdata=${dataDir}`, '--username=postgres', '--auth=trust', '--encoding=UTF8', '--locale=C'],
      { ...asServer, cwd: '/' },
    )
  })
  afterAll(async () => {
    await started?.stop()
    await rm(root, { recursive: true, force: true })
  })

  it('is locked on start (password set, pg_hba.conf rewritten, reloaded) with one log line', async () => {
    expect(await readFile(path.join(dataDir, 'pg_hba.conf'), 'utf8')).toMatch(
      /^host\s+all\s+all\s+127\.0\.0\.1\/32\s+trust/m,
    )
    const { log, lines } = captureLog('info')
    started = await startEmbeddedPostgres(dataDir, log)
    const locked = lines.filter((l) => String(l.msg).includes('locked'))
    expect(locked).toHaveLength(1)
    expect(JSON.stringify(locked[0])).not.toContain(new URL(started.url).password)

    const hba = await readFile(path.join(dataDir, 'pg_hba.conf'), 'utf8')
    expect(hba).not.toMatch(/^[^#]*\b(trust|replication)\b/m)
    expect(await connectAs(started.port, undefined)).toMatch(/password/)
    expect(await connectAs(started.port, decodeURIComponent(new URL(started.url).password))).toBe('connected')

    // a restart finds it locked: no second migration, the same secret
    const secret = new URL(started.url).password
    await started.stop()
    const again = captureLog('info')
    started = await startEmbeddedPostgres(dataDir, again.log)
    expect(new URL(started.url).password).toBe(secret)
    expect(await connectAs(started.port, undefined)).toMatch(/password/)
    expect(again.lines.filter((l) => String(l.msg).includes('locked'))).toHaveLength(0)
  })
})
