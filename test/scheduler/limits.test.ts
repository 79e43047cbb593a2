import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'
import { waitFor } from '../support/wait.js'
import { type FakeAdmin, startFakeAdmin } from './fake-admin.js'
import { type Call, controlledHandlers, type Harness, startHarness, TOKEN, triggerParam } from './harness.js'

let t: TestDatabase
let admin: FakeAdmin
const open: Harness[] = []

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

/** Handler calls not yet released: the chain children that would be alive now. */
const alive = (calls: readonly Call[], released: Set<Call>) => calls.filter((c) => !released.has(c))

describe('bounded scheduler', () => {
  it('runs at most maxRunning children, queues maxQueued, refuses the next run with a clear msg and counts it', async () => {
    const handlers = controlledHandlers()
    let refused = 0
    const h = await startHarness({
      db: t.db,
      handlers: handlers.handlers,
      adminUrl: admin.url,
      limits: { maxRunning: 2, maxQueued: 28 },
      onRunRefused: () => {
        refused += 1
      },
    })
    open.push(h)
    const logIds = Array.from({ length: 30 }, (_, i) => 9_100 + i)
    const replies = await Promise.all(logIds.map((logId, i) => h.post('run', triggerParam(logId, { jobId: 300 + i }))))
    expect(replies.every((r) => r.code === 200)).toBe(true)

    const over = await h.post('run', triggerParam(9_200, { jobId: 399 }))
    expect(over.code).toBe(500)
    expect(over.msg).toMatch(/executor busy: 2 runs running and 28 waiting.*XXLJOB_MAX_RUNNING.*run refused/)
    expect(refused).toBe(1)
    // the refused trigger is not kept as a run of this executor
    expect(await t.db.selectFrom('chain_runs').select('log_id').where('log_id', '=', 9_200).executeTakeFirst()).toBe(
      undefined,
    )

    const released = new Set<Call>()
    await waitFor(() => handlers.calls.length === 2)
    let most = 0
    while (released.size < 30) {
      const now = alive(handlers.calls, released)
      most = Math.max(most, now.length)
      const first = now[0]
      if (first === undefined) {
        await waitFor(() => alive(handlers.calls, released).length > 0, 5_000, 'the next queued run to start')
        continue
      }
      released.add(first)
      first.release()
      // the freed child is taken by the run that waited longest, not more than one at a time
      await waitFor(() => handlers.calls.length >= Math.min(30, released.size + 2), 5_000, 'the next run')
    }
    expect(most).toBe(2)
    expect(handlers.calls).toHaveLength(30)
    await waitFor(() => admin.accepted().filter((c) => logIds.includes(c.logId)).length === 30, 10_000, 'callbacks')

    // with the queue drained, a run is taken again
    expect((await h.post('run', triggerParam(9_201, { jobId: 398 }))).code).toBe(200)
  })

  it('refuses a serial run of a busy job once the waiting room is full, even with a child free', async () => {
    const handlers = controlledHandlers()
    const h = await startHarness({
      db: t.db,
      handlers: handlers.handlers,
      adminUrl: admin.url,
      limits: { maxRunning: 2, maxQueued: 1 },
    })
    open.push(h)
    expect((await h.post('run', triggerParam(9_300, { jobId: 500 }))).code).toBe(200)
    expect((await h.post('run', triggerParam(9_301, { jobId: 500 }))).code).toBe(200)
    expect((await h.post('run', triggerParam(9_302, { jobId: 500 }))).code).toBe(500)
    // another job still gets the free child
    expect((await h.post('run', triggerParam(9_303, { jobId: 501 }))).code).toBe(200)
    await waitFor(() => handlers.calls.length === 2)
    for (const c of handlers.calls) c.release()
    await waitFor(() => handlers.calls.length === 3)
    handlers.calls[2]?.release()
  })
})
