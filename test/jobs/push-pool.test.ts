import { readFile } from 'node:fs/promises'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PushPoolError, runPushPool } from '../../src/jobs/push-pool.job.js'
import { createLogger } from '../../src/logger.js'
import { createDemoDatabase, type DemoMarket } from '../support/demo-market.js'
import type { TestDatabase } from '../support/test-db.js'

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
    ;[t, demo] = await createDemoDatabase({ history: 1 })
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
    // what /metrics reads of it (stockplan_plan_rows{list="pool"}); a date without a pool file has none
    expect(await demo.services.files.poolSize(date)).toBe(file.codes.length)
    expect(file.codes.length).toBeGreaterThan(0)
    expect(await demo.services.files.poolSize('1999-01-04')).toBeUndefined()
  })

  // The pool invariant: nothing in pool/<date>.json contradicts /plan/verdict, at the default depths and others.
  it.each([
    [20, 50],
    [3, 8],
    [20, 22],
    [40, 100],
  ])(
    'POOL_TOP %i / POOL_MAX %i: every pool item carries the decision and card rank /plan/verdict gives',
    async (poolTop, poolMax) => {
      await runPushPool(deps(undefined, poolTop, poolMax), { date }, new AbortController().signal)
      const file = JSON.parse(await readFile(demo.services.files.poolPath(date), 'utf8')) as {
        codes: string[]
        items: Array<{ code: string; decision: string; card_rank: number }>
        main_count: number
        observe_count: number
      }
      const everyCode = (await demo.services.plans.getFull(date)).rows.map((r) => r.code)
      const { verdicts } = await demo.services.verdicts.lookup({ codes: everyCode, date })
      const byCode = new Map(
        verdicts.flatMap((v) => ('decision' in v ? [[v.code, v] as const] : [])).map(([c, v]) => [c, v]),
      )
      expect(byCode.size).toBe(everyCode.length)
      expect(file.items.length).toBeGreaterThan(0)
      for (const item of file.items) {
        const verdict = byCode.get(item.code)!
        expect({ code: item.code, decision: verdict.decision, card_rank: verdict.card_rank }).toEqual({
          code: item.code,
          decision: item.decision,
          card_rank: item.card_rank,
        })
      }
      // and the pool is the head of that cut: main ranks 1..k, then observe ranks 1..m, nothing skipped
      const mainVerdicts = [...byCode.values()].filter((v) => v.decision === 'main').length
      const observeVerdicts = [...byCode.values()].filter((v) => v.decision === 'observe').length
      const mainCount = Math.min(poolTop, mainVerdicts, poolMax)
      const observeCount = Math.min(observeVerdicts, poolMax - mainCount)
      expect(file.items.map((i) => `${i.decision}#${i.card_rank}`)).toEqual([
        ...Array.from({ length: mainCount }, (_, i) => `main#${i + 1}`),
        ...Array.from({ length: observeCount }, (_, i) => `observe#${i + 1}`),
      ])
      expect([file.main_count, file.observe_count, file.codes.length]).toEqual([
        mainCount,
        observeCount,
        mainCount + observeCount,
      ])
    },
  )
})
