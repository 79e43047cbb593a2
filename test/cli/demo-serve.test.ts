import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { chmod, mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { listeningUrl } from '../support/server-process.js'

/** The messages of the NDJSON lines of a stream's text. */
const messages = (text: string): string[] =>
  text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => (JSON.parse(l) as { msg: string }).msg)

describe('stockplan demo --serve', () => {
  let root: string | undefined
  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true })
  })

  it('serves with the PostgreSQL it started (no restart), logging the server to stdout like serve', async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'stockplan-demo-serve-'))
    await chmod(root, 0o755) // as root, the embedded server runs as its own user and must reach the data dir
    const pgDataDir = path.join(root, 'pg')
    const child = spawn(
      process.execPath,
      ['bin/stockplan.js', 'demo', '--stocks', '60', '--days', '40', '--history', '1', '--serve'],
      {
        env: {
          ...process.env,
          DATABASE_URL: '',
          PG_DATA_DIR: pgDataDir,
          PLAN_DATA_DIR: path.join(root, 'plan'),
          DEMO_DATA_DIR: path.join(root, 'demo'),
          PORT: '0', // the kernel's pick, read from the listening line: a port picked beforehand may be taken
          HOST: '127.0.0.1',
          LOG_LEVEL: 'info',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString()
    })
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString()
    })
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
    let health: { ok: boolean; latest_plan_date?: string } | undefined
    let pidWhileServing = false
    try {
      for (let i = 0; i < 600 && !health?.ok && child.exitCode === null; i++) {
        const url = listeningUrl(stdout)
        health = await fetch(`${url}/health`)
          .then((r) => r.json() as Promise<{ ok: boolean }>)
          .catch(() => undefined)
        if (!health?.ok) await new Promise((r) => setTimeout(r, 200))
      }
      pidWhileServing = existsSync(path.join(pgDataDir, 'postmaster.pid'))
    } finally {
      child.kill('SIGTERM')
    }
    expect(health?.ok, stderr).toBe(true)
    expect(await exited).toBe(0)

    expect(pidWhileServing).toBe(true)
    const errs = messages(stderr)
    expect(errs.filter((m) => m === 'started embedded postgresql')).toHaveLength(1)
    // stopped once, at shutdown: before serving it was handed over, not stopped and started again
    expect(errs.filter((m) => m === 'stopped embedded postgresql')).toHaveLength(1)
    const outs = messages(stdout)
    expect(outs).toContain('stock plan service listening')
    expect(errs).not.toContain('stock plan service listening')
    expect(existsSync(path.join(pgDataDir, 'postmaster.pid'))).toBe(false)
  }, 240_000)
})
