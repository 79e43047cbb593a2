/**
 * Outbound calls keep their secrets: a redirect from the XXL-JOB admin or the PMS is reported, never followed (the
 * token, the callback body and the pool reach no other host), and a password in a URL (POOL_PUSH_URL,
 * DATABASE_URL) reaches none of the texts people and systems read: the start-up error, the run log, the callback
 * message, the server log and `/health`.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runPushPool } from '../../src/jobs/push-pool.job.js'
import type { HandlerName, RunHandler } from '../../src/scheduler/index.js'
import { type FakeAdmin, startFakeAdmin } from '../scheduler/fake-admin.js'
import {
  captureLogger,
  controlledHandlers,
  type Harness,
  startHarness,
  TOKEN,
  triggerParam,
} from '../scheduler/harness.js'
import { buildTestApp } from '../support/app.js'
import { runCli } from '../support/cli-process.js'
import { createDemoDatabase, type DemoMarket } from '../support/demo-market.js'
import type { TestDatabase } from '../support/test-db.js'
import { waitFor } from '../support/wait.js'

const SECRET = 'pw-S3cret-7f1'

interface Seen {
  readonly path: string
  readonly headers: http.IncomingHttpHeaders
}

/** A local server that records each request and answers with `reply`. */
async function server(reply: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  const seen: Seen[] = []
  const s = http.createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      seen.push({ path: req.url ?? '', headers: req.headers })
      reply(req, res)
    })
  })
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise((resolve) => s.close(resolve)),
  }
}

describe('outbound calls and secrets', () => {
  let t: TestDatabase
  let demo: DemoMarket
  let elsewhere: Awaited<ReturnType<typeof server>>
  let redirector: Awaited<ReturnType<typeof server>>
  let pms: Awaited<ReturnType<typeof server>>
  let admin: FakeAdmin
  const open: Harness[] = []

  beforeAll(async () => {
    ;[t, demo] = await createDemoDatabase({ stocks: 300, history: 2 })
    elsewhere = await server((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"code":200}'),
    )
    redirector = await server((req, res) => res.writeHead(307, { location: `${elsewhere.url}${req.url}` }).end())
    pms = await server((_req, res) => res.writeHead(503).end())
    admin = await startFakeAdmin(TOKEN)
  })
  afterAll(async () => {
    for (const h of open) await h.close()
    await Promise.all([elsewhere?.close(), redirector?.close(), pms?.close(), admin?.close()])
    await demo?.cleanup()
    await t?.drop()
  })

  const pushDeps = (pushUrl: string, log = captureLogger().log) => ({
    latestDate: () => demo.services.tiers.latestDate(),
    getFull: (d: string) => demo.services.plans.getFull(d),
    files: demo.services.files,
    log,
    poolTop: 3,
    poolMax: 8,
    pushUrl,
    retryDelaysMs: [10],
    attempts: 2,
  })

  const runLog = async (h: Harness, logId: number) =>
    ((await h.post('log', { logId, fromLineNum: 1 })) as { content: { logContent: string } }).content.logContent

  it('a 307 from the admin reaches no other host: callback and registry refuse it and say so', async () => {
    const handlers = controlledHandlers()
    const h = await startHarness({ db: t.db, handlers: handlers.handlers, adminUrl: `${redirector.url}/xxl-job-admin` })
    open.push(h)
    const logId = 8_801
    expect((await h.post('run', triggerParam(logId))).code).toBe(200)
    ;(await waitFor(() => handlers.calls[0])).release('done')
    const refused = new RegExp(`HTTP 307 redirect to ${elsewhere.url.replaceAll('.', '\\.')}/\\S* not followed`)
    await waitFor(async () => refused.test(await runLog(h, logId)), 10_000, 'the callback refusal in the run log')
    await waitFor(() => h.logLines.some((l) => l.includes('registration failed') && refused.test(l)))
    expect(redirector.seen.some((s) => s.path.endsWith('/api/callback'))).toBe(true)
    expect(elsewhere.seen).toEqual([])
  })

  it('the pool push follows no redirect either, and does not retry one', async () => {
    const pushes = () => redirector.seen.filter((s) => s.path === '/pool').length
    await expect(runPushPool(pushDeps(`${redirector.url}/pool`), {}, new AbortController().signal)).rejects.toThrow(
      /HTTP 307 redirect to http:\/\/127\.0\.0\.1:\d+\/pool not followed/,
    )
    expect(pushes()).toBe(1)
    expect(elsewhere.seen).toEqual([])
  })

  it('a push password reaches neither the run log, the callback message nor the server log', async () => {
    const pushLog = captureLogger()
    const pushUrl = `http://stock:${SECRET}@${pms.url.slice('http://'.length)}/pool?key=${SECRET}`
    const pushPool: RunHandler = async (args, ctx) => {
      // what the child prints about its address before pushing, then the push itself
      await ctx.log(`[push-pool] pushing to ${pushUrl}`)
      return runPushPool(pushDeps(pushUrl, pushLog.log), args, ctx.signal)
    }
    const handlers = { ...controlledHandlers().handlers, pushPool } as Record<HandlerName, RunHandler>
    const h = await startHarness({ db: t.db, handlers, adminUrl: admin.url })
    open.push(h)
    const logId = 8_802
    const executorParams = JSON.stringify({ tradeDate: demo.planned.at(-1) })
    const trigger = triggerParam(logId, { executorHandler: 'pushPool', jobId: 77, executorParams })
    expect((await h.post('run', trigger)).code).toBe(200)
    const callback = await waitFor(() => admin.accepted().find((c) => c.logId === logId), 10_000, 'the callback')

    expect(callback.handleCode).toBe(500)
    expect(callback.handleMsg).toMatch(/push to http:\/\/127\.0\.0\.1:\d+ failed: HTTP 503/)
    expect(callback.handleMsg).not.toContain(SECRET)
    const log = await runLog(h, logId)
    expect(log).toContain('pushing to http://***@127.0.0.1')
    expect(log).not.toContain(SECRET)
    const serverLog = [...h.logLines, ...pushLog.lines].join('\n')
    expect(serverLog).toContain('pool push failed')
    expect(serverLog).not.toContain(SECRET)
    // the credentials went where they belong: to the PMS, as a Basic authorization header
    const auth = pms.seen.at(-1)?.headers.authorization
    expect(Buffer.from(String(auth).replace(/^Basic /, ''), 'base64').toString()).toBe(`stock:${SECRET}`)
  })

  it('a database password reaches neither the start-up error nor /health', async () => {
    for (const port of [99_999, 1]) {
      const exit = await runCli(['db', 'status'], { DATABASE_URL: `postgres://postgres:${SECRET}@127.0.0.1:${port}/x` })
      expect(exit.code).toBe(1)
      expect(exit.output).toMatch(/DATABASE_URL/)
      expect(exit.output).not.toContain(SECRET)
    }
    // the test store's URL carries the embedded cluster's password (CI's external PostgreSQL leg may have none)
    const password = decodeURIComponent(new URL(t.url).password)
    const app = await buildTestApp(t, demo.env)
    try {
      const health = await app.app.inject('/health')
      expect(health.statusCode).toBe(200)
      expect(health.body).not.toMatch(/:\/\//)
      expect(password === '' || !health.body.includes(password)).toBe(true)
    } finally {
      await app.close()
    }
  })
})
