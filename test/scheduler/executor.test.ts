import Fastify from 'fastify'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { JobAbortedError } from '../../src/jobs/job.js'
import { createLogger } from '../../src/logger.js'
import { createXxlJobExecutor, type RunHandler } from '../../src/scheduler/index.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'
import { waitFor } from '../support/wait.js'
import { type FakeAdmin, startFakeAdmin } from './fake-admin.js'
import { controlledHandlers, type Harness, PREFIX, startHarness, TOKEN, triggerParam } from './harness.js'

let t: TestDatabase
let admin: FakeAdmin
const open: Harness[] = []
let nextLogId = 1000

const newLogId = (): number => {
  nextLogId += 1
  return nextLogId
}

beforeAll(async () => {
  t = await createTestDatabase()
  admin = await startFakeAdmin(TOKEN)
})
afterEach(async () => {
  while (open.length > 0) await open.pop()?.close()
})
afterAll(async () => {
  await admin.close()
  await t.drop()
})

async function harness(handlers = controlledHandlers()) {
  const h = await startHarness({ db: t.db, handlers: handlers.handlers, adminUrl: admin.url })
  open.push(h)
  return { ...h, calls: handlers.calls }
}

const callbackFor = (logId: number) =>
  waitFor(() => admin.accepted().find((c) => c.logId === logId), 5_000, `callback ${logId}`)
const runRow = (logId: number) =>
  t.db.selectFrom('chain_runs').selectAll().where('log_id', '=', logId).executeTakeFirst()

describe('POST /run to the callback', () => {
  it('runs the chain in the background and calls back 200 with the summary', async () => {
    const h = await harness()
    const logId = newLogId()
    expect(await h.post('run', triggerParam(logId))).toEqual({ code: 200, msg: null })
    const call = await waitFor(() => h.calls[0])
    expect(call.handler).toBe('dailyPlanChain')
    expect(call.args).toEqual({ date: '2024-06-03' })
    expect(call.ctx.refuseIfBusy).toBe(false)
    expect(call.ctx.draining()).toBe(false)
    expect((await runRow(logId))?.status).toBe('running')
    await call.ctx.log('[build] ok 1234 rows')
    await call.ctx.log('[plan] ok (35)')
    call.release('build ok; plan ok (35); push-pool ok')
    expect(await callbackFor(logId)).toEqual({
      logId,
      logDateTim: 1717376400123,
      handleCode: 200,
      handleMsg: 'build ok; plan ok (35); push-pool ok',
    })
    const row = await runRow(logId)
    expect(row).toMatchObject({ status: 'succeeded', handle_code: 200, step: 'plan', job_id: 12 })
    const outbox = await waitFor(async () => {
      const r = await t.db.selectFrom('callback_outbox').selectAll().where('log_id', '=', logId).executeTakeFirst()
      return r?.delivered_at ? r : undefined
    })
    expect(outbox.attempts).toBe(1)
    expect(h.finished).toEqual([200])
  })

  it('fails the run with the error message when the handler throws', async () => {
    const h = await harness()
    const logId = newLogId()
    await h.post('run', triggerParam(logId, { jobId: 21, executorHandler: 'plan', executorParams: '' }))
    const call = await waitFor(() => h.calls[0])
    expect(call.args).toEqual({})
    call.fail(new Error('plan failed: no tier rows'))
    expect(await callbackFor(logId)).toMatchObject({ handleCode: 500, handleMsg: 'plan failed: no tier rows' })
    expect((await runRow(logId))?.status).toBe('failed')
  })

  it('names the current step when the error does not', async () => {
    const h = await harness()
    const logId = newLogId()
    await h.post('run', triggerParam(logId, { jobId: 22 }))
    const call = await waitFor(() => h.calls[0])
    await call.ctx.log('[push-pool] posting 20 codes')
    call.fail(new Error('connect ECONNREFUSED 10.0.0.9:80'))
    expect(await callbackFor(logId)).toMatchObject({
      handleCode: 500,
      handleMsg: 'push-pool failed: connect ECONNREFUSED 10.0.0.9:80',
    })
  })

  it('accepts invalid executorParams, then fails the run with a clear message', async () => {
    const h = await harness()
    const logId = newLogId()
    expect(
      await h.post('run', triggerParam(logId, { jobId: 23, executorParams: '{"tradeDate":"2024-13-01"}' })),
    ).toEqual({
      code: 200,
      msg: null,
    })
    const cb = await callbackFor(logId)
    expect(cb.handleCode).toBe(500)
    expect(cb.handleMsg).toMatch(/^invalid executorParams: tradeDate must be a real YYYY-MM-DD date/)
    expect(h.calls).toHaveLength(0)
  })

  it('aborts the run after executorTimeout seconds and calls back 502', async () => {
    const h = await harness()
    const logId = newLogId()
    await h.post('run', triggerParam(logId, { jobId: 24, executorTimeout: 1 }))
    const call = await waitFor(() => h.calls[0])
    expect(await callbackFor(logId)).toMatchObject({ handleCode: 502, handleMsg: 'job execute timeout ' })
    expect(call.ctx.signal.aborted).toBe(true)
    expect(call.ctx.signal.reason).toBeInstanceOf(JobAbortedError)
    expect((await runRow(logId))?.status).toBe('timeout')
    expect(h.finished).toEqual([502])
  })
})

describe('block strategies and kill', () => {
  it('runs SERIAL_EXECUTION triggers of a job one after another, in order; idleBeat tells when busy', async () => {
    const h = await harness()
    const ids = [newLogId(), newLogId(), newLogId()]
    for (const [i, logId] of ids.entries()) {
      const strategy = i === 2 ? 'NOT_A_STRATEGY' : 'SERIAL_EXECUTION'
      expect(
        await h.post(
          'run',
          triggerParam(logId, {
            jobId: 31,
            executorBlockStrategy: strategy,
            executorParams: `{"tradeDate":"2024-06-0${i + 3}"}`,
          }),
        ),
      ).toMatchObject({ code: 200 })
    }
    expect(await h.post('idleBeat', { jobId: 31 })).toEqual({
      code: 500,
      msg: 'job thread is running or has trigger queue.',
    })
    expect(await h.post('idleBeat', { jobId: 99 })).toEqual({ code: 200, msg: null })
    expect(await h.executor.status()).toMatchObject({ running: 1, queued: 2 })
    for (let i = 0; i < 3; i += 1) {
      const call = await waitFor(() => h.calls[i])
      // one at a time: the executor runs this call and holds the rest in the queue, and no other call has started
      expect(await h.executor.status()).toMatchObject({ running: 1, queued: 2 - i })
      expect(h.calls).toHaveLength(i + 1)
      expect(call.args).toEqual({ date: `2024-06-0${i + 3}` })
      call.release(`run ${i}`)
    }
    for (const [i, logId] of ids.entries())
      expect(await callbackFor(logId)).toMatchObject({ handleCode: 200, handleMsg: `run ${i}` })
    await waitFor(async () => (await h.post('idleBeat', { jobId: 31 })).code === 200)
  })

  it('refuses a DISCARD_LATER trigger while the job is busy and keeps no row for it', async () => {
    const h = await harness()
    const first = newLogId()
    const second = newLogId()
    await h.post('run', triggerParam(first, { jobId: 32, executorBlockStrategy: 'DISCARD_LATER' }))
    const call = await waitFor(() => h.calls[0])
    expect(call.ctx.refuseIfBusy).toBe(true)
    expect(await h.post('run', triggerParam(second, { jobId: 32, executorBlockStrategy: 'DISCARD_LATER' }))).toEqual({
      code: 500,
      msg: 'block strategy effect：Discard Later',
    })
    expect(await runRow(second)).toBeUndefined()
    call.release()
    await callbackFor(first)
    const third = newLogId()
    expect(
      await h.post('run', triggerParam(third, { jobId: 32, executorBlockStrategy: 'DISCARD_LATER' })),
    ).toMatchObject({ code: 200 })
    ;(await waitFor(() => h.calls[1])).release()
    await callbackFor(third)
  })

  it('COVER_EARLY aborts the running run, then runs the new one', async () => {
    const h = await harness()
    const first = newLogId()
    const second = newLogId()
    await h.post('run', triggerParam(first, { jobId: 33 }))
    const old = await waitFor(() => h.calls[0])
    expect(
      await h.post('run', triggerParam(second, { jobId: 33, executorBlockStrategy: 'COVER_EARLY' })),
    ).toMatchObject({ code: 200 })
    expect(await callbackFor(first)).toMatchObject({
      handleCode: 500,
      handleMsg: 'block strategy effect：Cover Early [job running, killed]',
    })
    expect(old.ctx.signal.aborted).toBe(true)
    expect((old.ctx.signal.reason as Error).message).toBe('block strategy effect：Cover Early')
    const next = await waitFor(() => h.calls[1])
    next.release('covered ok')
    expect(await callbackFor(second)).toMatchObject({ handleCode: 200, handleMsg: 'covered ok' })
    expect((await runRow(first))?.status).toBe('killed')
  })

  it('kill aborts the running run and every queued run of the job', async () => {
    const h = await harness()
    const [a, b, c] = [newLogId(), newLogId(), newLogId()]
    for (const logId of [a, b, c]) await h.post('run', triggerParam(logId, { jobId: 34 }))
    const running = await waitFor(() => h.calls[0])
    expect(await h.post('kill', { jobId: 34 })).toEqual({ code: 200, msg: null })
    expect(running.ctx.signal.aborted).toBe(true)
    expect((running.ctx.signal.reason as Error).message).toBe('scheduling center kill job.')
    expect(await callbackFor(a)).toMatchObject({
      handleCode: 500,
      handleMsg: 'scheduling center kill job. [job running, killed]',
    })
    for (const logId of [b, c]) {
      expect(await callbackFor(logId)).toMatchObject({
        handleCode: 500,
        handleMsg: 'scheduling center kill job. [job not executed, in the job queue, killed.]',
      })
      expect((await runRow(logId))?.status).toBe('killed')
    }
    expect(h.calls).toHaveLength(1)
    expect(await h.post('kill', { jobId: 34 })).toEqual({ code: 200, msg: 'job thread already killed.' })
    expect(await h.executor.status()).toMatchObject({ running: 0, queued: 0 })
  })

  it('closes a run whose handler ignores the abort after the grace period', async () => {
    const stubborn: RunHandler = () => new Promise(() => {})
    const base = controlledHandlers()
    const h = await harness({ handlers: { ...base.handlers, build: stubborn }, calls: base.calls })
    const logId = newLogId()
    await h.post('run', triggerParam(logId, { jobId: 35, executorHandler: 'build' }))
    await waitFor(async () => (await runRow(logId))?.status === 'running')
    await h.post('kill', { jobId: 35 })
    expect(await callbackFor(logId)).toMatchObject({ handleMsg: 'scheduling center kill job. [job running, killed]' })
  })
})

describe('refusals', () => {
  it('refuses a repeated logId, an unknown handler and a glue type other than BEAN', async () => {
    const h = await harness()
    const logId = newLogId()
    await h.post('run', triggerParam(logId, { jobId: 41 }))
    expect(await h.post('run', triggerParam(logId, { jobId: 41 }))).toEqual({
      code: 500,
      msg: `repeate trigger job, logId:${logId}`,
    })
    expect(await h.post('run', triggerParam(newLogId(), { executorHandler: 'demoJobHandler' }))).toEqual({
      code: 500,
      msg: 'job handler [demoJobHandler] not found.',
    })
    expect(await h.post('run', triggerParam(newLogId(), { executorHandler: 'constructor' }))).toMatchObject({
      code: 500,
    })
    expect(await h.post('run', triggerParam(newLogId(), { glueType: 'GLUE_SHELL' }))).toEqual({
      code: 500,
      msg: 'glueType[GLUE_SHELL] is not valid.',
    })
    const { glueType: _, ...noGlue } = triggerParam(newLogId())
    expect(await h.post('run', noGlue)).toEqual({ code: 500, msg: 'glueType[null] is not valid.' })
    expect(await h.post('run', '{"jobId":')).toMatchObject({
      code: 500,
      msg: expect.stringMatching(/^invalid request body/),
    })
    ;(await waitFor(() => h.calls[0])).release()
    await callbackFor(logId)
  })

  it('answers a wrong or missing token with code 500 and never logs or echoes the token', async () => {
    const h = await harness()
    const wrong = 'not-the-token'
    for (const op of ['beat', 'run', 'kill', 'log', 'nope']) {
      expect(await h.post(op, triggerParam(newLogId()), { token: wrong })).toEqual({
        code: 500,
        msg: 'The access token is wrong.',
      })
      expect(await h.post(op, triggerParam(newLogId()), { token: null })).toEqual({
        code: 500,
        msg: 'The access token is wrong.',
      })
    }
    const logId = newLogId()
    const res = await h.app.inject({
      method: 'POST',
      url: `${PREFIX}/run`,
      headers: { 'XXL-JOB-ACCESS-TOKEN': TOKEN, 'content-type': 'application/json' },
      payload: JSON.stringify(triggerParam(logId, { jobId: 42 })),
    })
    expect(res.body).not.toContain(TOKEN)
    ;(await waitFor(() => h.calls[0])).release()
    await callbackFor(logId)
    expect(h.calls).toHaveLength(1)
    const logged = h.logLines.join('')
    expect(logged.length).toBeGreaterThan(0)
    expect(logged).toContain('xxl-job: run accepted')
    expect(logged).not.toContain(TOKEN)
    expect(logged).not.toContain(wrong)
  })

  it('answers beat with a "" body, no body or any content type; unknown ops and other methods get code 500', async () => {
    const h = await harness()
    expect(await h.post('beat', '""')).toEqual({ code: 200, msg: null })
    expect(await h.post('beat')).toEqual({ code: 200, msg: null })
    expect(await h.post('beat', undefined, { contentType: null })).toEqual({ code: 200, msg: null })
    expect(await h.post('beat', '', { contentType: 'application/json' })).toEqual({ code: 200, msg: null })
    expect(await h.post('beat', '""', { contentType: 'text/html' })).toEqual({ code: 200, msg: null })
    expect(await h.post('idleBeat', '{"jobId":5}', { contentType: 'application/x-www-form-urlencoded' })).toEqual({
      code: 200,
      msg: null,
    })
    expect(await h.post('x')).toEqual({ code: 500, msg: 'invalid request, uri-mapping(/x) not found.' })
    expect(await h.post('run/extra')).toEqual({ code: 500, msg: 'invalid request, uri-mapping(/run/extra) not found.' })
    const get = await h.app.inject({ method: 'GET', url: `${PREFIX}/beat` })
    expect(get.statusCode).toBe(200)
    expect(get.json()).toEqual({ code: 500, msg: 'invalid request, HttpMethod not support.' })
  })

  it('accepts /trigger as an alias of /run', async () => {
    const h = await harness()
    const logId = newLogId()
    expect(await h.post('trigger', triggerParam(logId, { jobId: 43 }))).toEqual({ code: 200, msg: null })
    ;(await waitFor(() => h.calls[0])).release('via trigger')
    expect(await callbackFor(logId)).toMatchObject({ handleMsg: 'via trigger' })
  })

  it('keeps its lenient body parser to itself: the rest of the app still parses JSON strictly', async () => {
    const { handlers } = controlledHandlers()
    const executor = createXxlJobExecutor({
      db: t.db,
      log: createLogger({ logLevel: 'silent' }),
      config: { accessToken: TOKEN, adminAddresses: [], appName: 'daily-plan-service', executorAddress: undefined },
      handlers,
    })
    const app = Fastify()
    app.post('/echo', async (req) => ({ body: req.body }))
    await app.register(executor.plugin, { prefix: PREFIX })
    const json = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"a":1}',
    })
    expect(json.json()).toEqual({ body: { a: 1 } })
    const empty = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json' },
      payload: '',
    })
    expect(empty.statusCode).toBe(400)
    const text = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'text/csv' },
      payload: 'a,b',
    })
    expect(text.statusCode).toBe(415)
    const beat = await app.inject({
      method: 'POST',
      url: `${PREFIX}/beat`,
      headers: { 'XXL-JOB-ACCESS-TOKEN': TOKEN, 'content-type': 'application/json' },
      payload: '',
    })
    expect(beat.json()).toEqual({ code: 200, msg: null })
    await app.close()
    await executor.close()
  })

  it('refuses to register without a token', async () => {
    const { handlers } = controlledHandlers()
    const executor = createXxlJobExecutor({
      db: t.db,
      log: createLogger({ logLevel: 'silent' }),
      config: { accessToken: undefined, adminAddresses: [], appName: 'daily-plan-service', executorAddress: undefined },
      handlers,
    })
    const app = Fastify()
    await expect(app.register(executor.plugin, { prefix: PREFIX }).ready()).rejects.toThrow(
      /XXLJOB_ACCESS_TOKEN is not set/,
    )
    await app.close().catch(() => {})
    await executor.close()
  })
})

describe('POST /log', () => {
  it('pages the run log by line number and ends once the run finished and was read through', async () => {
    const h = await harness()
    const logId = newLogId()
    await h.post('run', triggerParam(logId, { jobId: 51 }))
    const call = await waitFor(() => h.calls[0])
    await call.ctx.log('[build] start')
    await call.ctx.log('[build] ok 1234 rows\nwith a second line')
    const first = (await h.post('log', { logDateTim: 1717376400000, logId, fromLineNum: 1 })) as {
      code: number
      content: { fromLineNum: number; toLineNum: number; logContent: string; isEnd: boolean }
      data: unknown
    }
    expect(first.code).toBe(200)
    expect(first.data).toEqual(first.content)
    const lines = first.content.logContent.split('\n')
    expect(lines.at(-1)).toBe('')
    expect(lines.slice(0, -1)).toHaveLength(5)
    expect(first.content).toMatchObject({ fromLineNum: 1, toLineNum: 5, isEnd: false })
    expect(lines[0]).toMatch(
      /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \[executor\] ----------- xxl-job job execute start -----------$/,
    )
    expect(lines[1]).toMatch(/\[executor\] ----------- Param:\{"tradeDate":"2024-06-03"\}$/)
    expect(lines[2]).toMatch(/ \[build\] start$/)
    expect(lines[3]).toMatch(/ \[build\] ok 1234 rows$/)
    expect(lines[4]).toMatch(/ \[build\] with a second line$/)

    const tail = (await h.post('log', { logId, fromLineNum: 4 })) as { content: Record<string, unknown> }
    expect(tail.content).toMatchObject({ fromLineNum: 4, toLineNum: 5, isEnd: false })
    expect(String(tail.content.logContent).split('\n')).toHaveLength(3)

    const past = (await h.post('log', { logId, fromLineNum: 6 })) as { content: Record<string, unknown> }
    expect(past.content).toEqual({ fromLineNum: 6, toLineNum: 5, logContent: '', isEnd: false })

    call.release('done')
    await callbackFor(logId)
    // the callback outcome is logged too: wait until it is there so the count below is final
    await waitFor(async () => {
      const r = (await h.post('log', { logId, fromLineNum: 1 })) as { content: { logContent: string } }
      return r.content.logContent.includes('callback finish')
    })
    const rest = (await h.post('log', { logId, fromLineNum: 6 })) as {
      content: { toLineNum: number; logContent: string; isEnd: boolean }
    }
    expect(rest.content.toLineNum).toBe(8)
    expect(rest.content.isEnd).toBe(false)
    const restLines = rest.content.logContent.split('\n').slice(0, -1)
    expect(restLines[0]).toMatch(/\[executor\] ----------- xxl-job job execute end\(finish\) -----------$/)
    expect(restLines[1]).toMatch(/\[executor\] ----------- Result: handleCode=200, handleMsg = done$/)
    expect(restLines[2]).toMatch(/\[executor\] ----------- xxl-job job callback finish\./)
    const end = (await h.post('log', { logId, fromLineNum: 9 })) as { content: Record<string, unknown> }
    expect(end.content).toEqual({ fromLineNum: 9, toLineNum: 8, logContent: '', isEnd: true })
  })

  it('answers an unknown logId as the Java executor does', async () => {
    const h = await harness()
    const reply = await h.post('log', { logDateTim: 0, logId: 987654321, fromLineNum: 3 })
    const result = { fromLineNum: 3, toLineNum: 0, logContent: 'readLog fail, logFile not exists', isEnd: true }
    expect(reply).toEqual({ code: 200, msg: null, content: result, data: result })
  })
})

describe('/run reply time', () => {
  it('answers within milliseconds while a handler runs (median and max of 50 calls printed)', async () => {
    const h = await harness()
    const address = await h.app.listen({ port: 0, host: '127.0.0.1' })
    const first = newLogId()
    await h.post('run', triggerParam(first, { jobId: 61 }))
    await waitFor(() => h.calls[0])
    const times: number[] = []
    const ids: number[] = []
    for (let i = 0; i < 50; i += 1) {
      const logId = newLogId()
      ids.push(logId)
      const started = performance.now()
      const res = await fetch(`${address}${PREFIX}/run`, {
        method: 'POST',
        headers: { 'XXL-JOB-ACCESS-TOKEN': TOKEN, 'content-type': 'application/json;charset=UTF-8' },
        body: JSON.stringify(triggerParam(logId, { jobId: 1000 + (i % 5) })),
        signal: AbortSignal.timeout(3_000),
      })
      const body = (await res.json()) as { code: number }
      times.push(performance.now() - started)
      expect(body.code).toBe(200)
    }
    const sorted = [...times].sort((a, b) => a - b)
    const median = ((sorted[24] ?? 0) + (sorted[25] ?? 0)) / 2
    console.log(
      `/run reply time over 50 calls with a handler running: median ${median.toFixed(2)} ms, max ${(sorted[49] ?? 0).toFixed(2)} ms`,
    )
    await h.post('kill', { jobId: 61 })
    for (let j = 0; j < 5; j += 1) await h.post('kill', { jobId: 1000 + j })
    await callbackFor(ids.at(-1) ?? 0)
  })
})
