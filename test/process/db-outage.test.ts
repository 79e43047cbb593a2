import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DemoMarket } from '../support/demo-market.js'
import { type SeededCluster, seedCluster } from '../support/seeded-cluster.js'
import { type ServerProcess, startServerProcess } from '../support/server-process.js'

async function timedFetch(url: string): Promise<{ status: number; body: Record<string, unknown>; ms: number }> {
  const started = Date.now()
  const res = await fetch(url, { signal: AbortSignal.timeout(15_000) })
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, ms: Date.now() - started }
}

describe('the database stopped under a running server', () => {
  let cluster: SeededCluster
  let demo: DemoMarket
  let server: ServerProcess

  beforeAll(async () => {
    cluster = await seedCluster({ stocks: 200, days: 70, history: 2, skipLast: 1 })
    demo = cluster.demo
    // one built-but-not-planned date, so that a live plan would need the store
    await demo.services.steps.build({ date: demo.calendar.at(-1)! }, new AbortController().signal)
    server = await startServerProcess({ DATABASE_URL: cluster.pg.url, PLAN_DATA_DIR: demo.planDataDir })
  })
  afterAll(async () => {
    server?.child.kill('SIGKILL')
    await cluster?.cleanup()
  })

  it('keeps answering from snapshots and cache, fails fast with {detail}, and recovers without a restart', async () => {
    const [older, planned] = demo.planned as [string, string]
    const unplanned = demo.calendar.at(-1)!
    const cachedBefore = await timedFetch(`${server.url}/plan?date=${planned}`)
    expect(cachedBefore.status).toBe(200)
    const latestBefore = await timedFetch(`${server.url}/plan`)
    expect(latestBefore.body.date).toBe(unplanned)

    await cluster.pg.stop()

    const health = await timedFetch(`${server.url}/health`)
    expect(health.status).toBe(200)
    expect(health.body).toMatchObject({ ok: false, pool_top: 20, pool_max: 50 })
    expect(String(health.body.error)).toMatch(/ECONNREFUSED|terminat|connect/)

    const cached = await timedFetch(`${server.url}/plan?date=${planned}`)
    expect(cached.status).toBe(200)
    expect(cached.body.main).toEqual(cachedBefore.body.main)

    const latest = await timedFetch(`${server.url}/plan`)
    expect(latest.status).toBe(200)
    expect(latest.body.generated_at).toBe(latestBefore.body.generated_at)

    const fromSnapshot = await timedFetch(`${server.url}/plan?date=${older}&top=7`)
    expect(fromSnapshot.status).toBe(200)
    expect(fromSnapshot.body.plan_source).toBe('snapshot')

    // another cut of a day already loaded is served from the kept `_full`, with no store
    const otherCut = await timedFetch(`${server.url}/plan?date=${unplanned}&top=3`)
    expect(otherCut.status).toBe(200)
    expect(otherCut.body).toMatchObject({ date: unplanned, plan_source: 'live' })

    const neverLoaded = demo.calendar.at(-4)!
    for (const url of [
      `/plan?date=${neverLoaded}`,
      '/plan/dates',
      '/plan/verdict?codes=600519',
      '/logic_state?codes=600519',
    ]) {
      const res = await timedFetch(`${server.url}${url}`)
      expect([500, 503], url).toContain(res.status)
      expect(typeof res.body.detail, url).toBe('string')
      expect(res.ms, url).toBeLessThan(10_000)
      expect(JSON.stringify(res.body), url).not.toMatch(/\bselect\b|\bfrom "|at .*\.ts:\d+/i)
    }

    await cluster.restart()
    const deadline = Date.now() + 20_000
    let recovered = await timedFetch(`${server.url}/health`)
    while (!recovered.body.ok && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250))
      recovered = await timedFetch(`${server.url}/health`)
    }
    expect(recovered.body).toMatchObject({ ok: true, latest_plan_date: unplanned })
    expect((await timedFetch(`${server.url}/plan/dates`)).status).toBe(200)
    expect((await timedFetch(`${server.url}/plan?date=${unplanned}`)).body.plan_source).toBe('live')
  })
})
