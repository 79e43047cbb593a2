/**
 * The scheduler token is never logged and never echoed: every log line of a whole run (wrong, missing and right
 * tokens on every executor op, a real dailyPlanChain run calling back to the admin, callbacks failing while the
 * admin is down) and every reply, body and headers, is free of it; so is a presented wrong token. Checked with
 * the service's own logger at trace level in process, and on the output of a real `stockplan serve` process.
 */
import { Writable } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServices } from '../../src/compose.js'
import { buildApp } from '../../src/http/app.js'
import { createLogger } from '../../src/logger.js'
import type { XxlJobExecutor } from '../../src/scheduler/index.js'
import { createScheduler, mountScheduler, XXLJOB_PREFIX } from '../../src/scheduler-wiring.js'
import { createMetrics } from '../../src/services/metrics.js'
import { type FakeAdmin, startFakeAdmin } from '../scheduler/fake-admin.js'
import { FAST, triggerParam } from '../scheduler/harness.js'
import { testConfig } from '../support/config.js'
import { createDemoDatabase, type DemoMarket } from '../support/demo-market.js'
import { type ServerProcess, startServerProcess } from '../support/server-process.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'

const TOKEN = 'tkn-Q7f3xZ91-do-not-log'
const PRESENTED_WRONG = 'wrong-presented-8d2c4e'
const PREFIX = XXLJOB_PREFIX
const OPS = ['beat', 'idleBeat', 'run', 'trigger', 'kill', 'log', 'nope', '']
const WRONG_TOKENS: Array<string | undefined> = [
  undefined,
  '',
  PRESENTED_WRONG,
  `${TOKEN}x`,
  TOKEN.slice(0, -1),
  TOKEN.toUpperCase(),
  `Bearer ${TOKEN}`,
  ` ${TOKEN} `,
]

async function until<T>(read: () => T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = read()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 50))
  }
}

interface Reply {
  readonly status: number
  readonly headers: string
  readonly body: string
}

function expectSecretFree(text: string, what: string): void {
  expect(text.includes(TOKEN), `${what} holds the token`).toBe(false)
  expect(text.toLowerCase().includes(TOKEN.toLowerCase()), `${what} holds the token in another case`).toBe(false)
  expect(text.includes(PRESENTED_WRONG), `${what} holds the presented wrong token`).toBe(false)
}

describe('the scheduler token is never logged or echoed', () => {
  let t: TestDatabase
  let demo: DemoMarket
  let admin: FakeAdmin
  let executor: XxlJobExecutor
  let app: FastifyInstance
  const lines: string[] = []
  const replies: Reply[] = []

  async function post(
    op: string,
    token: string | undefined,
    payload?: unknown,
    contentType = 'application/json',
  ): Promise<Reply> {
    const headers: Record<string, string> = { 'content-type': contentType }
    if (token !== undefined) headers['XXL-JOB-ACCESS-TOKEN'] = token
    const res = await app.inject({
      method: 'POST',
      url: `${PREFIX}/${op}`,
      headers,
      ...(payload === undefined ? {} : { payload: typeof payload === 'string' ? payload : JSON.stringify(payload) }),
    })
    const reply = { status: res.statusCode, headers: JSON.stringify(res.headers), body: res.body }
    replies.push(reply)
    return reply
  }

  beforeAll(async () => {
    ;[t, demo] = await createDemoDatabase({ stocks: 150, days: 70, history: 1, skipLast: 1 })
    admin = await startFakeAdmin(TOKEN)
    const config = testConfig({
      ...demo.env,
      LOG_LEVEL: 'trace',
      XXLJOB_ACCESS_TOKEN: TOKEN,
      XXLJOB_ADMIN_ADDRESSES: admin.url,
    })
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString('utf8'))
        done()
      },
    })
    // the service's own logger (with its redaction), at trace level
    const log = createLogger(config, sink)
    const services = createServices(config, log, t)
    const metrics = createMetrics({ defaults: false })
    executor = createScheduler(services, metrics, { timing: FAST })!
    app = await buildApp({
      ...services,
      metrics,
      extraPlugins: [mountScheduler(executor)],
    })
    await executor.start()
  })
  afterAll(async () => {
    await app?.close()
    await executor?.close()
    await admin?.close()
    await demo?.cleanup()
    await t?.drop()
  })

  it('answers wrong and missing tokens with the fixed message on every op', async () => {
    for (const op of OPS) {
      for (const token of WRONG_TOKENS) {
        const reply = await post(op, token, triggerParam(9000 + replies.length))
        expect(reply.status).toBe(200)
        expect(JSON.parse(reply.body)).toEqual({ code: 500, msg: 'The access token is wrong.' })
      }
    }
  })

  it('runs a real chain with the right token, with callbacks delivered and then failing while the admin is down', async () => {
    const date = demo.calendar.at(-1)!
    expect(JSON.parse((await post('beat', TOKEN)).body).code).toBe(200)
    expect(JSON.parse((await post('idleBeat', TOKEN, { jobId: 1 })).body).code).toBe(200)
    const run = await post(
      'run',
      TOKEN,
      triggerParam(7001, { jobId: 1, executorParams: JSON.stringify({ tradeDate: date }) }),
    )
    expect(JSON.parse(run.body).code).toBe(200)
    const callback = await until(() => admin.accepted().find((c) => c.logId === 7001), 60_000)
    expect(callback.handleCode).toBe(200)
    const log = await post('log', TOKEN, { logDateTim: Date.now(), logId: 7001, fromLineNum: 1 })
    expect(JSON.parse(log.body).content.logContent).toMatch(/\[plan\] ok/)
    await post('kill', TOKEN, { jobId: 1 })
    await post('run', TOKEN, '{"jobId":', 'text/plain')
    await post('run', TOKEN, triggerParam(7002, { executorHandler: 'noSuchHandler' }))

    // the admin goes away: a failing run's callback is retried and its failures logged
    admin.setMode('down')
    const failing = await post(
      'run',
      TOKEN,
      triggerParam(7003, { jobId: 2, executorParams: '{"tradeDate":"2001-01-02"}' }),
    )
    expect(JSON.parse(failing.body).code).toBe(200)
    await until(() => (lines.some((l) => /callback/i.test(l) && /"level":(40|50)/.test(l)) ? true : undefined), 15_000)
    admin.setMode('ok')
    await until(() => admin.accepted().find((c) => c.logId === 7003), 15_000)
  })

  it('left the token out of every log line and every reply', () => {
    expect(lines.length).toBeGreaterThan(50)
    expect(lines.join('')).toMatch(/7001/)
    lines.forEach((line, i) => {
      expectSecretFree(line, `log line ${i}: ${line.slice(0, 200)}`)
    })
    expect(replies.length).toBeGreaterThan(OPS.length * WRONG_TOKENS.length)
    for (const reply of replies) {
      expectSecretFree(reply.body, `reply body ${reply.body.slice(0, 200)}`)
      expectSecretFree(reply.headers, `reply headers ${reply.headers}`)
    }
    // the admin did get the token: the test would not notice a renamed header otherwise
    expect(admin.calls.every((c) => c.tokenOk)).toBe(true)
  })
})

describe('the token stays out of a real server process output', () => {
  let t: TestDatabase
  let admin: FakeAdmin
  let server: ServerProcess | undefined

  beforeAll(async () => {
    t = await createTestDatabase()
    admin = await startFakeAdmin(TOKEN)
  })
  afterAll(async () => {
    if (server && server.child.exitCode === null) server.child.kill('SIGKILL')
    await admin?.close()
    await t?.drop()
  })

  it('logs startup, refused and accepted calls and shutdown at trace level without the token', async () => {
    server = await startServerProcess({
      DATABASE_URL: t.url,
      LOG_LEVEL: 'trace',
      XXLJOB_ACCESS_TOKEN: TOKEN,
      XXLJOB_ADMIN_ADDRESSES: admin.url,
      XXLJOB_EXECUTOR_ADDRESS: 'http://127.0.0.1:1/api/v1/xxljob/',
    })
    const bodies: string[] = []
    for (const token of [PRESENTED_WRONG, `Bearer ${TOKEN}`, TOKEN]) {
      for (const op of ['beat', 'run', 'log']) {
        const res = await fetch(`${server.url}${PREFIX}/${op}`, {
          method: 'POST',
          headers: { 'XXL-JOB-ACCESS-TOKEN': token, 'content-type': 'application/json' },
          body: '{"logId":1,"jobId":1',
        })
        bodies.push(`${JSON.stringify([...res.headers])} ${await res.text()}`)
      }
    }
    await until(() => (admin.calls.length > 0 ? true : undefined), 10_000)
    server.child.kill('SIGTERM')
    await server.exited
    const output = server.output()
    expect(output).toMatch(/listening/)
    expect(output).toMatch(/xxljob\/beat/)
    expectSecretFree(output, 'server output')
    for (const body of bodies) expectSecretFree(body, body)
  })
})
