import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ChainBusyError, withChainLock } from '../../src/storage/chain-lock.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'

/** A holder that signals once it holds the lock and keeps it until released: no sleep stands in for either. */
function gate(): { entered: Promise<void>; release: () => void; fn: () => Promise<void> } {
  let enter!: () => void
  let release!: () => void
  const entered = new Promise<void>((r) => {
    enter = r
  })
  const released = new Promise<void>((r) => {
    release = r
  })
  return {
    entered,
    release,
    fn: async () => {
      enter()
      await released
    },
  }
}

describe('chain advisory lock', () => {
  let t: TestDatabase
  beforeAll(async () => {
    t = await createTestDatabase()
  })
  afterAll(async () => t.drop())

  /** Sessions whose last statement asked for an advisory lock: a waiter shows up here between its polls. */
  async function lockAskers(): Promise<number[]> {
    const { rows } = await t.pool.query<{ pid: number }>(
      `select pid from pg_stat_activity
        where datname = current_database() and query like 'select pg_try_advisory_lock%'`,
    )
    return rows.map((r) => r.pid)
  }

  it('refuses a second holder for the same date in try mode and lets another date through', async () => {
    const signal = new AbortController().signal
    const holder = gate()
    const first = withChainLock(t.pool, '2026-11-20', 'wait', signal, holder.fn)
    await holder.entered
    await expect(withChainLock(t.pool, '2026-11-20', 'try', signal, async () => 'second')).rejects.toBeInstanceOf(
      ChainBusyError,
    )
    await expect(withChainLock(t.pool, '2026-11-21', 'try', signal, async () => 'other date')).resolves.toBe(
      'other date',
    )
    holder.release()
    await first
    await expect(withChainLock(t.pool, '2026-11-20', 'try', signal, async () => 'after')).resolves.toBe('after')
  })

  it('makes a waiting holder run after the first one, never both at once', async () => {
    const signal = new AbortController().signal
    const events: string[] = []
    const a = gate()
    const first = withChainLock(t.pool, '2026-11-22', 'wait', signal, async () => {
      events.push('a start')
      await a.fn()
      events.push('a end')
    })
    await a.entered
    const before = new Set(await lockAskers())
    const second = withChainLock(t.pool, '2026-11-22', 'wait', signal, async () => {
      events.push('b start')
    })
    // b has asked for the lock and been refused (a holds it): it is waiting, and has not run
    while (!(await lockAskers()).some((pid) => !before.has(pid))) await new Promise((r) => setImmediate(r))
    expect(events).toEqual(['a start'])
    a.release()
    await Promise.all([first, second])
    expect(events).toEqual(['a start', 'a end', 'b start'])
  })

  it('stops waiting when aborted', async () => {
    const controller = new AbortController()
    const holder = gate()
    const first = withChainLock(t.pool, '2026-11-23', 'wait', new AbortController().signal, holder.fn)
    await holder.entered
    const waiting = withChainLock(t.pool, '2026-11-23', 'wait', controller.signal, async () => 'ran')
    controller.abort(new Error('stop waiting'))
    await expect(waiting).rejects.toThrow('stop waiting')
    holder.release()
    await first
  })
})
