import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { throwIfAborted } from '../../src/jobs/job.js'
import type { RunHandler } from '../../src/scheduler/index.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'
import { waitFor } from '../support/wait.js'
import { type FakeAdmin, startFakeAdmin } from './fake-admin.js'
import {
  controlledHandlers,
  type Harness,
  type HarnessOptions,
  sleep,
  startHarness,
  TOKEN,
  triggerParam,
} from './harness.js'

let t: TestDatabase
let admin: FakeAdmin
const open: Harness[] = []
let nextLogId = 5000

const newLogId = (): number => {
  nextLogId += 1
  return nextLogId
}

beforeAll(async () => {
  t = await createTestDatabase()
})
afterEach(async () => {
  while (open.length > 0) await open.pop()?.close()
  await admin?.close()
})
afterAll(async () => {
  await t.drop()
})

/** After a test closed `h` itself: it is no longer closed after the test. */
function closedByTest(h: Harness): void {
  const at = open.indexOf(h)
  if (at < 0) throw new Error('closedByTest: not a harness of this file that is still open')
  open.splice(at, 1)
}

async function harness(options: Partial<HarnessOptions> = {}, handlers = controlledHandlers()) {
  const h = await startHarness({ db: t.db, handlers: handlers.handlers, adminUrl: admin.url, ...options })
  // the object the test holds is the one in `open`: a test that closes it removes that one from the list, and a
  // harness left open (whose outbox would claim later tests' callbacks) is closed after its test
  const held = { ...h, calls: handlers.calls }
  open.push(held)
  return held
}

const outboxRow = (logId: number) =>
  t.db.selectFrom('callback_outbox').selectAll().where('log_id', '=', logId).executeTakeFirst()
const runRow = (logId: number) =>
  t.db.selectFrom('chain_runs').selectAll().where('log_id', '=', logId).executeTakeFirst()
const callbacksOf = (logId: number) =>
  admin.calls.filter((c) => c.path === 'callback' && (c.body as { logId: number }[]).some((i) => i.logId === logId))

describe('callback delivery', () => {
  it('retries through HTTP 500, code 500 and a dropped connection, delivers after recovery, then never again', async () => {
    admin = await startFakeAdmin(TOKEN)
    admin.script('http500', 'code500', 'down')
    const h = await harness()
    const logId = newLogId()
    await h.post('run', triggerParam(logId, { jobId: 71 }))
    ;(await waitFor(() => h.calls[0])).release('chain ok')
    const delivered = await waitFor(async () => {
      const row = await outboxRow(logId)
      return row?.delivered_at ? row : undefined
    })
    expect(delivered.attempts).toBe(4)
    expect(delivered.last_error).toBeNull()
    expect(callbacksOf(logId).map((c) => c.mode)).toEqual(['http500', 'code500', 'down', 'ok'])
    expect(admin.accepted().filter((c) => c.logId === logId)).toEqual([
      { logId, logDateTim: 1717376400123, handleCode: 200, handleMsg: 'chain ok' },
    ])
    // a later run's callback goes out in a later pass, which claims every due row: the delivered one is not among them
    const later = newLogId()
    await h.post('run', triggerParam(later, { jobId: 71 }))
    ;(await waitFor(() => h.calls[1])).release('chain ok')
    await waitFor(async () => (await outboxRow(later))?.delivered_at ?? undefined)
    expect(callbacksOf(later)).toHaveLength(1)
    expect(callbacksOf(logId)).toHaveLength(4)
    const log = (await h.post('log', { logId, fromLineNum: 1 })) as { content: { logContent: string } }
    expect(log.content.logContent).toMatch(/callback fail \(attempt 1, next in 50 ms\), callbackResult: .*HTTP 500/)
    expect(log.content.logContent).toMatch(
      /callback fail \(attempt 2, next in 100 ms\), callbackResult: .*code 500 admin busy/,
    )
    expect(log.content.logContent).toMatch(/callback fail \(attempt 3, next in 150 ms\)/)
    expect(log.content.logContent).toMatch(/callback finish\./)
    expect(await h.executor.status()).toEqual({ running: 0, queued: 0, outboxPending: 0 })
  })

  it('tries the admin addresses in order until one accepts', async () => {
    admin = await startFakeAdmin(TOKEN)
    const h = await harness({ adminUrls: ['http://127.0.0.1:1/xxl-job-admin', admin.url] })
    const logId = newLogId()
    await h.post('run', triggerParam(logId, { jobId: 72 }))
    ;(await waitFor(() => h.calls[0])).release()
    const row = await waitFor(async () => {
      const r = await outboxRow(logId)
      return r?.delivered_at ? r : undefined
    })
    expect(row).toMatchObject({ attempts: 1, last_error: null })
    expect(admin.accepted().filter((c) => c.logId === logId)).toHaveLength(1)
  })

  it('a new executor on the same database delivers a callback the previous one left pending', async () => {
    admin = await startFakeAdmin(TOKEN)
    admin.setMode('down')
    const first = await harness({ executorAddress: 'http://10.9.9.9:8300/api/v1/xxljob/' })
    const logId = newLogId()
    await first.post('run', triggerParam(logId, { jobId: 73 }))
    ;(await waitFor(() => first.calls[0])).release('before restart')
    await waitFor(async () => ((await outboxRow(logId))?.attempts ?? 0) >= 1)
    await first.close()
    closedByTest(first)
    const pending = await outboxRow(logId)
    expect(pending?.delivered_at).toBeNull()
    expect(admin.accepted()).toHaveLength(0)

    admin.setMode('ok')
    const second = await harness({ executorAddress: 'http://10.9.9.9:8300/api/v1/xxljob/' })
    const cb = await waitFor(() => admin.accepted().find((c) => c.logId === logId))
    expect(cb).toEqual({ logId, logDateTim: 1717376400123, handleCode: 200, handleMsg: 'before restart' })
    await waitFor(async () => (await outboxRow(logId))?.delivered_at, 5_000, 'delivered_at')
    expect(second.executor.instanceId).not.toBe(first.executor.instanceId)
  })

  it('at start, fails the runs a dead process left running or queued and calls them back', async () => {
    admin = await startFakeAdmin(TOKEN)
    const address = 'http://10.7.7.7:8300/api/v1/xxljob/'
    const old = new Date(Date.now() - 10 * 60_000)
    const [stale, sameAddress, alive] = [newLogId(), newLogId(), newLogId()]
    const base = {
      job_id: 74,
      handler: 'dailyPlanChain',
      params: '',
      block_strategy: 'SERIAL_EXECUTION',
      timeout_s: 0,
      log_date_time: 42,
    }
    await t.db
      .insertInto('chain_runs')
      .values([
        {
          ...base,
          log_id: stale,
          status: 'running',
          owner_id: 'dead-host:1:aa',
          owner_address: null,
          heartbeat_at: old,
        },
        {
          ...base,
          log_id: sameAddress,
          status: 'queued',
          owner_id: 'old-me:2:bb',
          owner_address: address,
          heartbeat_at: new Date(),
        },
        {
          ...base,
          log_id: alive,
          status: 'running',
          owner_id: 'other-replica:3:cc',
          owner_address: 'http://10.7.7.8:8300/api/v1/xxljob/',
          heartbeat_at: new Date(),
        },
      ])
      .execute()
    const h = await harness({ executorAddress: address })
    for (const logId of [stale, sameAddress]) {
      expect(await waitFor(() => admin.accepted().find((c) => c.logId === logId))).toEqual({
        logId,
        logDateTim: 42,
        handleCode: 500,
        handleMsg: 'executor restarted before the run finished',
      })
      expect(await runRow(logId)).toMatchObject({ status: 'failed', handle_code: 500 })
    }
    // a live replica's run (fresh heartbeat, another address) is left alone
    expect((await runRow(alive))?.status).toBe('running')
    expect(h.finished).toEqual([500, 500])
    const log = (await h.post('log', { logId: stale, fromLineNum: 1 })) as {
      content: { logContent: string; isEnd: boolean }
    }
    expect(log.content.logContent).toContain(
      'executor restarted before the run finished (its executor dead-host:1:aa stopped)',
    )
    await t.db.updateTable('chain_runs').set({ status: 'failed' }).where('log_id', '=', alive).execute()
  })

  it('keeps callbacks pending when no admin address is configured', async () => {
    admin = await startFakeAdmin(TOKEN)
    const h = await harness({ adminUrl: undefined })
    const logId = newLogId()
    await h.post('run', triggerParam(logId, { jobId: 75 }))
    ;(await waitFor(() => h.calls[0])).release()
    await waitFor(async () => (await runRow(logId))?.status === 'succeeded')
    // even the shutdown's last flush has nowhere to send it
    await h.executor.close()
    expect(await outboxRow(logId)).toMatchObject({ attempts: 0, delivered_at: null })
    expect((await h.executor.status()).outboxPending).toBeGreaterThanOrEqual(1)
    expect(h.logLines.join('')).toContain('no XXLJOB_ADMIN_ADDRESSES')
    await t.db.updateTable('callback_outbox').set({ delivered_at: new Date() }).where('log_id', '=', logId).execute()
  })
})

describe('registry and shutdown', () => {
  it('registers at start and every beat, and deregisters on close', async () => {
    admin = await startFakeAdmin(TOKEN)
    const address = 'http://10.0.0.5:8300/api/v1/xxljob/'
    const h = await harness({ executorAddress: address })
    const body = { registryGroup: 'EXECUTOR', registryKey: 'daily-plan-service', registryValue: address }
    await waitFor(() => admin.bodies('registry').length >= 3, 3_000, 'three registry beats')
    expect(admin.bodies('registry')[0]).toEqual(body)
    expect(admin.calls.every((c) => c.tokenOk)).toBe(true)
    // a second executor beating at the same interval is the clock that shows no beat follows the close
    const witnessAddress = 'http://10.0.0.6:8300/api/v1/xxljob/'
    await harness({ executorAddress: witnessAddress })
    const beatsOf = (value: string) =>
      admin.bodies('registry').filter((b) => (b as { registryValue: string }).registryValue === value).length
    await h.close()
    closedByTest(h)
    expect(admin.bodies('registryRemove')).toEqual([body])
    const beats = beatsOf(address)
    const witnessBeats = beatsOf(witnessAddress)
    await waitFor(() => beatsOf(witnessAddress) >= witnessBeats + 4, 3_000, 'four more witness beats')
    expect(beatsOf(address)).toBe(beats)
  })

  it('on close, lets a running handler stop at its step boundary, fails queued runs, flushes the callbacks', async () => {
    admin = await startFakeAdmin(TOKEN)
    let sawDraining = false
    const stepwise: RunHandler = async (_args, ctx) => {
      for (let step = 0; step < 1000; step += 1) {
        // as runChain does at a step boundary
        if (ctx.draining()) {
          sawDraining = true
          throw new Error('plan failed: service shutting down before this step')
        }
        await ctx.log(`[build] step ${step}`)
        await sleep(20)
      }
      return { summary: 'never' }
    }
    const base = controlledHandlers()
    // a drain time with room for the flush to retry a POST that a loaded machine let fail
    const h = await harness(
      { timing: { drainTimeoutMs: 5_000 } },
      { handlers: { ...base.handlers, build: stepwise }, calls: base.calls },
    )
    const [running, queued] = [newLogId(), newLogId()]
    await h.post('run', triggerParam(running, { jobId: 81, executorHandler: 'build' }))
    await h.post('run', triggerParam(queued, { jobId: 81, executorHandler: 'build' }))
    await waitFor(async () => (await runRow(running))?.status === 'running')
    const closing = h.executor.close()
    expect(await h.post('run', triggerParam(newLogId(), { jobId: 81 }))).toEqual({
      code: 500,
      msg: 'executor shutting down',
    })
    await closing
    await h.close()
    closedByTest(h)
    expect(sawDraining).toBe(true)
    const byLog = new Map(admin.accepted().map((c) => [c.logId, c]))
    expect(byLog.get(running)).toMatchObject({ handleCode: 500, handleMsg: 'executor shutting down' })
    expect(byLog.get(queued)).toMatchObject({ handleCode: 500, handleMsg: 'executor shutting down' })
    expect(await runRow(running)).toMatchObject({ status: 'failed' })
    expect(await runRow(queued)).toMatchObject({ status: 'failed' })
  })

  it('on close, aborts a handler that does not stop within the drain time', async () => {
    admin = await startFakeAdmin(TOKEN)
    const patient: RunHandler = (_args, ctx) =>
      new Promise((_resolve, reject) => {
        const timer = setInterval(() => {
          try {
            throwIfAborted(ctx.signal)
          } catch (err) {
            clearInterval(timer)
            reject(err)
          }
        }, 10)
      })
    const base = controlledHandlers()
    const h = await harness(
      { timing: { drainTimeoutMs: 200 } },
      { handlers: { ...base.handlers, plan: patient }, calls: base.calls },
    )
    const logId = newLogId()
    await h.post('run', triggerParam(logId, { jobId: 82, executorHandler: 'plan' }))
    await waitFor(async () => (await runRow(logId))?.status === 'running')
    const started = Date.now()
    await h.close()
    closedByTest(h)
    expect(Date.now() - started).toBeGreaterThanOrEqual(190)
    expect(admin.accepted().find((c) => c.logId === logId)).toMatchObject({
      handleCode: 500,
      handleMsg: 'executor shutting down',
    })
  })
})
