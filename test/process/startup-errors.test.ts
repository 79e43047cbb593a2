import { execFileSync } from 'node:child_process'
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { freePort, isProcessAlive, readPostmasterPid } from '../../src/storage/embedded-postgres.js'
import { runCli } from '../support/cli-process.js'

/** A listening socket whose connections are accepted and never answered: a black-hole address. */
function blackHole(): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>()
  const server = net.createServer((socket) => {
    sockets.add(socket)
    socket.on('error', () => undefined)
  })
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: (server.address() as net.AddressInfo).port,
        close: () =>
          new Promise((r) => {
            for (const s of sockets) s.destroy()
            server.close(() => r())
          }),
      }),
    ),
  )
}

describe('start-up failures name the setting and the fix, and exit within 10 s', () => {
  let root: string
  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'stockplan-startup-'))
    await chmod(root, 0o755)
  })
  afterAll(async () => {
    execFileSync('sh', ['-c', `umount ${path.join(root, 'ro')} 2>/dev/null || true`])
    await rm(root, { recursive: true, force: true })
  })

  // the six misconfigurations below run side by side (each CLI mostly waits on a refused, silent or missing store);
  // the taken-port case starts a real PostgreSQL and runs after them, alone
  async function expectFailure(env: Record<string, string>, ...patterns: RegExp[]): Promise<void> {
    const run = await runCli(['serve'], { PORT: '0', ...env }, { timeoutMs: 60_000, mark: /opening the store/ })
    expect(run.signal, run.output).toBeNull() // it exited by itself, not killed by the test's timeout
    expect(run.code, run.output).toBe(1)
    // timed from the store's first step: booting node and tsx on a loaded machine is not this issue's
    expect(run.markMs, run.output).toBeDefined()
    expect(run.ms - run.markMs!, run.output).toBeLessThan(10_000)
    for (const pattern of patterns) expect(run.output).toMatch(pattern)
  }

  it.concurrent('DATABASE_URL to a closed port', async () => {
    const port = await freePort()
    await expectFailure(
      { DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/stockplan` },
      new RegExp(`DATABASE_URL \\(127\\.0\\.0\\.1:${port}/stockplan\\)`),
      /connection refused; start PostgreSQL there/,
    )
  })

  it.concurrent('DATABASE_URL to an address that never answers', async () => {
    const hole = await blackHole()
    try {
      await expectFailure(
        { DATABASE_URL: `postgres://postgres@127.0.0.1:${hole.port}/stockplan` },
        /no answer from DATABASE_URL \(127\.0\.0\.1:\d+\/stockplan\) within 4 s/,
        /check the host\/port/,
      )
    } finally {
      await hole.close()
    }
  })

  it.concurrent('DATABASE_URL naming a database that does not exist', async () => {
    const url = new URL(inject('pgAdminUrl'))
    url.pathname = '/no_such_database_16'
    await expectFailure(
      { DATABASE_URL: url.toString() },
      /database "no_such_database_16" does not exist/,
      /createdb no_such_database_16/,
    )
  })

  it.concurrent('PG_DATA_DIR under a regular file', async () => {
    const file = path.join(root, 'a-file')
    await writeFile(file, 'x')
    await expectFailure(
      { PG_DATA_DIR: path.join(file, 'pg') },
      /PG_DATA_DIR=\S+a-file\/pg is under \S+a-file, which is a regular file/,
      /set PG_DATA_DIR to a directory path/,
    )
  })

  it.concurrent('PG_DATA_DIR on a read-only file system (a read-only tmpfs mount)', async () => {
    const ro = path.join(root, 'ro')
    await mkdir(ro)
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs', ro])
    await expectFailure(
      { PG_DATA_DIR: path.join(ro, 'pg') },
      /PG_DATA_DIR=\S+ro\/pg is on a read-only file system/,
      /set PG_DATA_DIR to a writable directory/,
    )
  })

  it.concurrent('PG_DATA_DIR under /proc (used to spin forever)', async () => {
    await expectFailure({ PG_DATA_DIR: '/proc/nope/pg' }, /PG_DATA_DIR=\/proc\/nope\/pg cannot be created/)
  })

  it('a taken port after the database started: exits 1 within 5 s of the failure, names the holder, leaves no postgres', async () => {
    const holder = net.createServer()
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', () => r()))
    const port = (holder.address() as net.AddressInfo).port
    const dataDir = path.join(root, 'busy-pg')
    try {
      const run = await runCli(
        ['serve'],
        { PORT: String(port), PG_DATA_DIR: dataDir },
        { timeoutMs: 90_000, mark: /start-up failed; stopping what started/ },
      )
      expect(run.signal, run.output).toBeNull()
      expect(run.code, run.output).toBe(1)
      expect(run.output).toMatch(/started embedded postgresql[\s\S]*start-up failed/) // the database was up
      expect(run.markMs, run.output).toBeDefined()
      expect(run.ms - run.markMs!, run.output).toBeLessThan(5000)
      expect(run.output).toMatch(
        new RegExp(`port ${port} on 127.0.0.1 is already in use by process ${process.pid} \\(`),
      )
      expect(run.output).toMatch(/set PORT to another port, or stop the process holding it/)
      expect(run.output).toMatch(/stopped embedded postgresql/)
      const left = await readPostmasterPid(dataDir)
      expect(left === undefined || !isProcessAlive(left.pid)).toBe(true)
    } finally {
      holder.close()
    }
  })
})
