import { request } from 'node:http'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/http/app.js'
import { createMetrics } from '../../src/services/metrics.js'
import { buildTestApp, listenLocal, type TestApp } from '../support/app.js'
import { createDemoDatabase, type DemoMarket } from '../support/demo-market.js'
import { type CapturedLog, captureLog } from '../support/log-capture.js'
import { rawRequest } from '../support/raw-http.js'
import type { TestDatabase } from '../support/test-db.js'
import { waitFor } from '../support/wait.js'

interface Answer {
  readonly status: number
  readonly headers: Record<string, string | string[] | undefined>
  readonly body: Buffer
}

/** One request over a real socket: the lane sits in front of Fastify's listener, which `inject` never passes. */
function send(base: string, method: string, path: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }))
    })
    req.on('error', reject)
    req.end()
  })
}

const HEADERS = [
  'content-type',
  'content-length',
  'connection',
  'keep-alive',
  'x-content-type-options',
  'cache-control',
  'etag',
]

const PLAN_LINE_FIELDS = [
  'reqId',
  'client',
  'date',
  'regime',
  'generated_at',
  'plan_version',
  'top',
  'obs_top',
  'theme_cap',
  'cache',
  'plan_source',
  'format',
  'status',
  'elapsed_s',
]

describe('cached GET /plan answered before routing (the plan hit lane)', () => {
  let t: TestDatabase
  let demo: DemoMarket
  let built: TestApp
  let app: FastifyInstance
  let captured: CapturedLog
  let base: string
  const metrics = createMetrics({ defaults: false })

  const metric = async (name: string, labels = ''): Promise<number> => {
    const text = (await send(base, 'GET', '/metrics')).body.toString()
    const line = text.split('\n').find((l) => l.startsWith(labels ? `${name}{` : `${name} `) && l.includes(labels))
    return line ? Number(line.split(' ').at(-1)) : 0
  }
  const planLines = () => captured.lines.filter((l) => l.msg === 'plan served' || l.msg === 'plan failed')

  beforeAll(async () => {
    ;[t, demo] = await createDemoDatabase({ history: 1 })
    captured = captureLog('info')
    // listening as the server does: the latest date is then known without a query, and a hit answers in one tick
    // a still clock: the snapshot's freshness check (a stat at most once a second) never lapses between the
    // requests of a case on a loaded machine, so a hit stays a hit
    const still = new Date()
    built = await buildTestApp(t, demo.env, {
      observe: metrics.plan,
      log: captured.log,
      listen: true,
      now: () => still,
    })
    app = await buildApp({ ...built.services, log: captured.log, metrics })
    base = `http://127.0.0.1:${await listenLocal(app)}`
    // the LISTEN connection comes up on its own time, and coming up makes the latest date unknown until it is read
    // again: until then a request without a date goes to the route, so the lane's counts start once it is known
    const { latestDate } = built.services
    await waitFor(async () => (await latestDate.get()) !== undefined && latestDate.peek().known, 10_000, 'the listener')
  })
  afterAll(async () => {
    await app.close()
    await built.close()
    await demo.cleanup()
    await t.drop()
  })

  it('answers a URL the route served with the same bytes, headers, metrics and access line', async () => {
    const lanesBefore = await metric('stockplan_plan_hit_lane_total')
    const okBefore = await metric('stockplan_http_requests_total', 'route="/plan",method="GET",status="200"')
    const linesBefore = planLines().length
    const url = '/plan?top=7&obs_top=3'
    const answers = [await send(base, 'GET', url), await send(base, 'GET', url), await send(base, 'GET', url)]
    // the first is routed by Fastify; the lane learns the URL from it and answers the next two
    expect(await metric('stockplan_plan_hit_lane_total')).toBe(lanesBefore + 2)
    expect(await metric('stockplan_http_requests_total', 'route="/plan",method="GET",status="200"')).toBe(okBefore + 3)
    for (const answer of answers.slice(1)) {
      expect(answer.status).toBe(200)
      expect(answer.body.equals(answers[0]!.body)).toBe(true)
      for (const header of HEADERS) expect(answer.headers[header], header).toBe(answers[0]!.headers[header])
    }
    expect(JSON.parse(answers[0]!.body.toString())).toMatchObject({
      main: expect.any(Array),
      date: demo.planned.at(-1),
    })
    const lines = planLines().slice(linesBefore)
    expect(lines).toHaveLength(3)
    for (const line of lines) {
      for (const field of PLAN_LINE_FIELDS) expect(line[field], field).not.toBeUndefined()
      expect(line).toMatchObject({ top: 7, obs_top: 3, theme_cap: 5, status: 200, format: 'json', client: '127.0.0.1' })
    }
    expect(lines.slice(1).map((l) => l.cache)).toEqual(['hit', 'hit'])
    const ids = lines.map((l) => l.reqId as string)
    expect(new Set(ids).size, 'request ids stay unique across the lane and Fastify').toBe(3)
    for (const id of ids) expect(id).toMatch(/^req-[0-9a-z]+$/)
  })

  it('answers no Host outside ALLOWED_HOSTS from the lane either: Fastify refuses it with 403', async () => {
    const config = { ...built.services.config, allowedHosts: ['127.0.0.1'] }
    const guarded = await buildApp({ ...built.services, config, metrics: createMetrics({ defaults: false }) })
    try {
      const port = await listenLocal(guarded)
      const get = (host: string) =>
        rawRequest(port, `GET /plan?top=4 HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`)
      expect((await get('127.0.0.1')).status).toBe(200) // routed, learnt
      const hit = await get(`127.0.0.1:${port}`)
      expect(hit.status).toBe(200)
      expect(hit.headers['x-content-type-options']).toBe('nosniff')
      const lane = async () =>
        /^stockplan_plan_hit_lane_total (\d+)/m.exec(
          (await guarded.inject({ url: '/metrics', headers: { host: '127.0.0.1' } })).body,
        )?.[1]
      expect(await lane()).toBe('1') // the second was the lane's: the third would be too, but for its Host
      const rebound = await get('attacker.example')
      expect(rebound.status).toBe(403)
      expect(JSON.parse(rebound.body).detail).toMatch(/ALLOWED_HOSTS/)
    } finally {
      await guarded.close()
    }
  })

  it('hands a learnt URL back to the route once the cache forgets it (a refresh)', async () => {
    const url = '/plan?top=9'
    await send(base, 'GET', url)
    await send(base, 'GET', url)
    const lanes = await metric('stockplan_plan_hit_lane_total')
    expect((await send(base, 'POST', '/plan/refresh')).status).toBe(200)
    const linesBefore = planLines().length
    const afterRefresh = await send(base, 'GET', url)
    expect(afterRefresh.status).toBe(200)
    expect(await metric('stockplan_plan_hit_lane_total'), 'the miss went to the route').toBe(lanes)
    expect(
      planLines()
        .slice(linesBefore)
        .map((l) => l.cache),
    ).toEqual(['miss'])
    await send(base, 'GET', url)
    expect(await metric('stockplan_plan_hit_lane_total'), 'and the next hit to the lane again').toBe(lanes + 1)
  })

  it('leaves to Fastify what the route did not answer as JSON: refusals, HEAD, Markdown, nocache, other paths', async () => {
    const lanes = await metric('stockplan_plan_hit_lane_total')
    for (let i = 0; i < 2; i++) {
      const twice = await send(base, 'GET', '/plan?top=5&top=6')
      expect(twice.status).toBe(422)
      expect(JSON.parse(twice.body.toString()).detail).toBe('top must be given once, not 2 times')
      expect((await send(base, 'GET', '/plan?top=0')).status).toBe(422)
      const head = await send(base, 'HEAD', '/plan?top=7&obs_top=3')
      expect(head.status).toBe(200)
      expect(head.body.length).toBe(0)
      const md = await send(base, 'GET', '/plan?format=md')
      expect(md.headers['content-type']).toBe('text/markdown; charset=utf-8')
      expect((await send(base, 'GET', '/plan?nocache=1')).status).toBe(200)
      expect((await send(base, 'GET', '/plan/dates')).status).toBe(200)
      expect((await send(base, 'GET', '/plan/')).status).toBe(404)
    }
    expect(await metric('stockplan_plan_hit_lane_total')).toBe(lanes)
  })
})
