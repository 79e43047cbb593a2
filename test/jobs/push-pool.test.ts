import { readFile } from 'node:fs/promises'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PushPoolError, runPushPool } from '../../src/jobs/push-pool.job.js'
import { createLogger } from '../../src/logger.js'
import { type DemoMarket, seedDemoMarket } from '../support/demo-market.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'

interface Received {
  readonly key: string | undefined
  readonly body: {
    date: string
    codes: string[]
    items: Array<{ decision: string }>
    idempotency_key: string
    pool_top: number
  }
}

/** A stand-in PMS on a free port that answers the scripted statuses in turn, then 200. */
async function fakePms(statuses: number[]) {
  const received: Received[] = []
  const server = http.createServer((req, res) => {
    let text = ''
    req.on('data', (c: Buffer) => {
      text += c.toString()
    })
    req.on('end', () => {
      received.push({ key: req.headers['idempotency-key'] as string | undefined, body: JSON.parse(text) })
      res.writeHead(statuses.shift() ?? 200).end()
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/pool`,
    received,
    close: () => new Promise((r) => server.close(r)),
  }
}

describe('push-pool', () => {
  let t: TestDatabase
  let demo: DemoMarket
  let date: string
  const log = createLogger({ logLevel: 'silent' })

  beforeAll(async () => {
    t = await createTestDatabase()
    demo = await seedDemoMarket(t, { history: 1 })
    date = demo.planned.at(-1)!
  })
  afterAll(async () => {
    await demo.cleanup()
    await t.drop()
  })

  const deps = (pushUrl: string | undefined, poolTop = 3, poolMax = 8) => ({
    latestDate: () => demo.services.tiers.latestDate(),
    getFull: (d: string) => demo.services.plans.getFull(d),
    files: demo.services.files,
    log,
    poolTop,
    poolMax,
    pushUrl,
    retryDelaysMs: [10, 20],
    attempts: 4,
  })

  it('retries a failing PMS with the same idempotency key until it accepts, and writes the pool file', async () => {
    const pms = await fakePms([500, 503])
    const result = await runPushPool(deps(pms.url), { date }, new AbortController().signal)
    await pms.close()
    expect(result).toMatchObject({ pushed: true, attempts: 3 })
    expect(pms.received).toHaveLength(3)
    const plan = (await demo.services.plans.getFull(date)).plan_version
    expect(new Set(pms.received.map((r) => r.key))).toEqual(new Set([`${date}:${plan}`]))
    const body = pms.received[0]!.body
    expect(body.codes.length).toBeLessThanOrEqual(8)
    const decisions = body.items.map((i) => i.decision)
    expect(decisions.filter((d) => d === 'main').length).toBeLessThanOrEqual(3)
    expect(decisions.indexOf('observe') === -1 || decisions.lastIndexOf('main') < decisions.indexOf('observe')).toBe(
      true,
    )
    const file = JSON.parse(await readFile(demo.services.files.poolPath(date), 'utf8'))
    expect(file).toEqual(body)
  })

  it('gives up at once on a client error, names what to do, and still leaves the pool file', async () => {
    const pms = await fakePms([400])
    await expect(runPushPool(deps(pms.url), { date }, new AbortController().signal)).rejects.toThrow(
      /HTTP 400; the pool file is written, rerun push-pool/,
    )
    await pms.close()
    expect(pms.received).toHaveLength(1)
  })

  it('fails after the last attempt when the PMS is down', async () => {
    const pms = await fakePms([])
    await pms.close()
    const error = await runPushPool(deps(pms.url), { date }, new AbortController().signal).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(PushPoolError)
  })

  it('only writes the file when no POOL_PUSH_URL is set', async () => {
    const result = await runPushPool(deps(undefined, 20, 50), {}, new AbortController().signal)
    expect(result).toMatchObject({ pushed: false, date })
    const file = JSON.parse(await readFile(demo.services.files.poolPath(date), 'utf8'))
    expect(file).toMatchObject({ date, pool_top: 20, pool_max: 50 })
  })
})
