import { request } from 'node:http'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/http/app.js'
import { createMetrics } from '../../src/services/metrics.js'
import { buildTestApp, listenLocal, type TestApp } from '../support/app.js'
import { createDemoDatabase, type DemoMarket } from '../support/demo-market.js'
import type { TestDatabase } from '../support/test-db.js'

interface Answer {
  readonly status: number
  readonly headers: Record<string, string | string[] | undefined>
  readonly body: string
}

/** One request over a real socket, so that the plan hit lane (in front of Fastify) answers what it has learnt. */
function send(base: string, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method, headers }, (res) => {
      let body = ''
      res.on('data', (c: Buffer) => {
        body += c.toString()
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

describe('Cache-Control and ETag per endpoint', () => {
  let t: TestDatabase
  let demo: DemoMarket
  let built: TestApp
  let app: FastifyInstance
  let base: string

  beforeAll(async () => {
    ;[t, demo] = await createDemoDatabase({ history: 2 })
    const still = new Date() // the snapshot's freshness check never lapses between a case's requests
    built = await buildTestApp(t, demo.env, { listen: true, now: () => still })
    app = await buildApp({ ...built.services, metrics: createMetrics({ defaults: false }) })
    base = `http://127.0.0.1:${await listenLocal(app)}`
  })
  afterAll(async () => {
    await app?.close()
    await built?.close()
    await demo?.cleanup()
    await t?.drop()
  })

  it('the latest plan: revalidated each time, with an ETag that answers 304 without a body (route and lane alike)', async () => {
    const first = await send(base, '/plan')
    expect(first.status).toBe(200)
    expect(first.headers['cache-control']).toBe('no-cache')
    const etag = first.headers.etag as string
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/)
    // the second answer comes from the hit lane: the same validator
    const again = await send(base, '/plan')
    expect(again.headers.etag).toBe(etag)
    expect(again.body).toBe(first.body)

    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const fromLane = await send(base, '/plan', { 'if-none-match': ifNoneMatch })
      expect(fromLane.status, ifNoneMatch).toBe(304)
      expect(fromLane.body).toBe('')
      expect(fromLane.headers).toMatchObject({ etag, 'cache-control': 'no-cache' })
    }
    // a URL the lane has not learnt, for the same cut: the route answers the 304
    const fromRoute = await send(base, '/plan?top=20', { 'if-none-match': etag })
    expect(fromRoute.status).toBe(304)
    expect(fromRoute.body).toBe('')
    expect(fromRoute.headers).toMatchObject({ etag, 'cache-control': 'no-cache' })

    const stale = await send(base, '/plan', { 'if-none-match': '"yesterday"' })
    expect(stale.status).toBe(200)
    expect(stale.body).toBe(first.body)
    // another cut is other bytes: another validator
    expect((await send(base, '/plan?top=3')).headers.etag).not.toBe(etag)
  })

  it('a dated plan and a forced recomputation are revalidated each time too (nothing by age), with their ETag', async () => {
    const past = demo.planned.at(-2)!
    const dated = await send(base, `/plan?date=${past}`)
    expect(dated.status).toBe(200)
    // a regenerate (build, plan and POST /plan/refresh for that day) changes a dated plan as well
    expect(dated.headers['cache-control']).toBe('no-cache')
    expect(dated.headers.etag).toMatch(/^"/)
    const again = await send(base, `/plan?date=${past}`, { 'if-none-match': dated.headers.etag as string })
    expect([again.status, again.body, again.headers['cache-control']]).toEqual([304, '', 'no-cache'])

    const fresh = await send(base, '/plan?nocache=1')
    expect(fresh.headers['cache-control']).toBe('no-cache')
    expect(fresh.headers.etag).toMatch(/^"/)
    const markdown = await send(base, '/plan?format=md')
    expect(markdown.headers['content-type']).toMatch(/^text\/markdown/)
    expect(markdown.headers['cache-control']).toBe('no-cache')
    expect(markdown.headers.etag).toBeUndefined()
    const sameEtag = await send(base, '/plan?format=md', { 'if-none-match': '*' })
    expect(sameEtag.status).toBe(200)
  })

  it('health, lookups, metrics, errors and writes: never stored', async () => {
    const code = (JSON.parse((await send(base, '/plan')).body) as { main: Array<{ code: string }> }).main[0]!.code
    const answers: Array<[string, Answer]> = [
      ['/health', await send(base, '/health')],
      ['/plan/dates', await send(base, '/plan/dates')],
      ['/plan/verdict', await send(base, `/plan/verdict?codes=${code}`)],
      ['/logic_state', await send(base, `/logic_state?code=${code}`)],
      ['/stocks', await send(base, `/stocks?codes=${code}`)],
      ['/stock/:code', await send(base, `/stock/${code}`)],
      ['/plan/track_record', await send(base, '/plan/track_record')],
      ['/metrics', await send(base, '/metrics')],
      ['404 /plan', await send(base, '/plan?date=1999-01-04')],
      ['422 /plan', await send(base, '/plan?top=0')],
      ['404 route', await send(base, '/nowhere')],
      ['POST /plan/refresh', await send(base, '/plan/refresh', {}, 'POST')],
    ]
    for (const [what, answer] of answers) {
      expect(answer.status, what).toBeLessThan(500)
      expect(answer.headers['cache-control'], what).toBe('no-store')
      expect(answer.headers.etag, what).toBeUndefined()
    }
    expect(answers.map(([what, a]) => `${what} ${a.status}`)).toEqual([
      '/health 200',
      '/plan/dates 200',
      '/plan/verdict 200',
      '/logic_state 200',
      '/stocks 200',
      '/stock/:code 200',
      '/plan/track_record 200',
      '/metrics 200',
      '404 /plan 404',
      '422 /plan 422',
      '404 route 404',
      'POST /plan/refresh 200',
    ])
    // the viewer's pages keep their own policy (revalidate with the version in their URLs)
    expect((await send(base, '/')).headers['cache-control']).toBe('no-cache')
  })
})
