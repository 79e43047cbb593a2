import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ChainBusyError, withChainLock } from '../../src/storage/chain-lock.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'

describe('chain advisory lock', () => {
  let t: TestDatabase
  beforeAll(async () => {
    t = await createTestDatabase()
  })
  afterAll(async () => t.drop())

  it('refuses a second holder for the same date in try mode and lets another date through', async () => {
    const signal = new AbortController().signal
    let release!: () => void
    const held = new Promise<void>((r) => {
      release = r
    })
    const first = withChainLock(t.pool, '2026-11-20', 'wait', signal, () => held)
    await new Promise((r) => setTimeout(r, 100))
    await expect(withChainLock(t.pool, '2026-11-20', 'try', signal, async () => 'second')).rejects.toBeInstanceOf(
      ChainBusyError,
    )
    await expect(withChainLock(t.pool, '2026-11-21', 'try', signal, async () => 'other date')).resolves.toBe(
      'other date',
    )
    release()
    await first
    await expect(withChainLock(t.pool, '2026-11-20', 'try', signal, async () => 'after')).resolves.toBe('after')
  })

  it('makes a waiting holder run after the first one, never both at once', async () => {
    const signal = new AbortController().signal
    const events: string[] = []
    const job = (name: string) => async () => {
      events.push(`${name} start`)
      await new Promise((r) => setTimeout(r, 300))
      events.push(`${name} end`)
    }
    await Promise.all([
      withChainLock(t.pool, '2026-11-22', 'wait', signal, job('a')),
      withChainLock(t.pool, '2026-11-22', 'wait', signal, job('b')),
    ])
    expect(events[1]).toMatch(/end$/)
    expect(events[3]).toMatch(/end$/)
  })

  it('stops waiting when aborted', async () => {
    const controller = new AbortController()
    let release!: () => void
    const first = withChainLock(
      t.pool,
      '2026-11-23',
      'wait',
      new AbortController().signal,
      () =>
        new Promise<void>((r) => {
          release = r
        }),
    )
    await new Promise((r) => setTimeout(r, 100))
    const waiting = withChainLock(t.pool, '2026-11-23', 'wait', controller.signal, async () => 'ran')
    controller.abort(new Error('stop waiting'))
    await expect(waiting).rejects.toThrow('stop waiting')
    release()
    await first
  })
})
