import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isProcessAlive, readPostmasterPid } from '../../src/storage/embedded-postgres.js'
import { runCli } from '../support/cli-process.js'
import { type SeededCluster, seedCluster } from '../support/seeded-cluster.js'
import { type ServerProcess, startServerProcess } from '../support/server-process.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function json(url: string): Promise<Record<string, unknown>> {
  const res = await fetch(url, { signal: AbortSignal.timeout(30_000) })
  return (await res.json()) as Record<string, unknown>
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe().catch(() => undefined)
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(200)
  }
}

describe('the embedded database dies under a running server', () => {
  let cluster: SeededCluster
  let server: ServerProcess

  beforeAll(async () => {
    cluster = await seedCluster({ stocks: 200, days: 70, history: 2, skipLast: 1 })
    await cluster.release()
    await cluster.pg.stop()
    // the server owns the embedded database from here on
    server = await startServerProcess({ PG_DATA_DIR: cluster.dataDir, PLAN_DATA_DIR: cluster.demo.planDataDir })
  })
  afterAll(async () => {
    server?.child.kill('SIGKILL')
    // a failed test leaves the server's postmaster behind: stop it before removing its data directory
    const left = cluster && (await readPostmasterPid(cluster.dataDir))
    if (left && isProcessAlive(left.pid)) process.kill(left.pid, 'SIGQUIT')
    await sleep(500)
    await cluster?.cleanup()
  })

  it('restarts it on the same data directory and port, reconnects, and serves a date a CLI chain wrote', async () => {
    const planned = cluster.demo.planned.at(-1)!
    const next = cluster.demo.calendar.at(-1)!
    expect((await json(`${server.url}/plan`)).date).toBe(planned)
    const before = (await readPostmasterPid(cluster.dataDir))!
    process.kill(before.pid, 'SIGKILL')

    const back = await until(
      'a new postmaster',
      async () => {
        const now = await readPostmasterPid(cluster.dataDir)
        return now && now.pid !== before.pid && isProcessAlive(now.pid) ? now : undefined
      },
      30_000,
    )
    expect(back.port).toBe(before.port)
    await until('/health ok again', async () => ((await json(`${server.url}/health`)).ok ? true : undefined), 20_000)
    expect(server.output()).toMatch(/embedded postgresql died; restarting it on the same data directory/)
    // pg_ctl returns (and the server logs) a moment after the new postmaster accepts connections
    await until(
      'the restart logged',
      async () => (/restarted embedded postgresql/.test(server.output()) ? true : undefined),
      10_000,
    )

    // a one-shot command joins the server's database instead of starting a private one on another port
    const chain = await runCli(
      ['chain', '--date', next],
      {
        PG_DATA_DIR: cluster.dataDir,
        PLAN_DATA_DIR: cluster.demo.planDataDir,
      },
      { timeoutMs: 180_000 },
    )
    expect(chain.code, chain.output).toBe(0)
    expect(chain.output).not.toMatch(/started embedded postgresql/)
    expect((await readPostmasterPid(cluster.dataDir))?.pid).toBe(back.pid) // still the server's

    await until(
      'the new date on /plan',
      async () => ((await json(`${server.url}/plan`)).date === next ? true : undefined),
      15_000,
    )
    expect(await json(`${server.url}/health`)).toMatchObject({ ok: true, latest_plan_date: next })

    server.child.kill('SIGTERM')
    expect(await server.exited).toBe(0)
    expect(isProcessAlive(back.pid)).toBe(false)
  }, 300_000)
})
