import { execFile } from 'node:child_process'
import { chmod, mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from '../../src/logger.js'
import { createLatestDate } from '../../src/services/latest-date.js'
import { EMBEDDED_PG_USER, type RunningPostgres, startEmbeddedPostgres } from '../../src/storage/embedded-postgres.js'
import { storeChangeListener } from '../../src/storage/store-changes.js'

const run = promisify(execFile)
const log = createLogger({ logLevel: 'silent' })

describe('the LISTEN connection of the latest date', () => {
  let root: string
  let server: RunningPostgres
  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'stockplan-listen-'))
    await chmod(root, 0o755)
    server = await startEmbeddedPostgres(path.join(root, 'pg'), log)
  })
  afterAll(async () => {
    await server.stop().catch(() => undefined)
    await rm(root, { recursive: true, force: true })
  })

  const query = async (): Promise<string | undefined> => {
    const client = new pg.Client({ connectionString: server.url, connectionTimeoutMillis: 1000 })
    await client.connect()
    try {
      return (await client.query<{ d: string }>("select '2026-11-20' as d")).rows[0]?.d
    } finally {
      await client.end()
    }
  }

  it('never holds up a smart shutdown, and reconnects with backoff once the database is back', async () => {
    let resyncs = 0
    const latest = createLatestDate({
      listen: storeChangeListener({
        url: server.url,
        log,
        timings: { sessionMs: 1000, heartbeatMs: 200, retryMinMs: 100, retryMaxMs: 400 },
      }),
      query,
      log,
      onResync: () => {
        resyncs++
      },
    })
    try {
      expect(await latest.get()).toBe('2026-11-20')
      // a smart shutdown waits for every session to end: the listener's must end by itself
      const bins = (await import(`@embedded-postgres/${os.platform()}-${os.arch()}`)) as { pg_ctl: string }
      const uid = Number((await run('id', ['-u', EMBEDDED_PG_USER])).stdout.trim())
      const started = Date.now()
      await run(bins.pg_ctl, ['stop', '-D', path.join(root, 'pg'), '-m', 'smart', '-w', '-t', '20', '-s'], {
        uid: process.getuid?.() === 0 ? uid : undefined,
      })
      expect(Date.now() - started).toBeLessThan(10_000)
      // the last known date stands while the store is down
      expect(await latest.get()).toBe('2026-11-20')
      server = await startEmbeddedPostgres(path.join(root, 'pg'), log, { port: server.port })
      const deadline = Date.now() + 10_000
      // the re-read after the resync must be over too: a query left connected when afterAll stops the server fast
      // gets its 'terminating connection' as an uncaught error
      while ((resyncs === 0 || !latest.peek().known) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100))
      }
      expect(resyncs).toBeGreaterThan(0)
      expect(latest.peek()).toEqual({ known: true, value: '2026-11-20' })
    } finally {
      await latest.close()
    }
  }, 120_000)
})
