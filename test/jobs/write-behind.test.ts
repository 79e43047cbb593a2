import { describe, expect, it } from 'vitest'
import { createWriteBehind } from '../../src/jobs/write-behind.js'

describe('write behind', () => {
  it('waits for every deferred write and throws the first failure at the flush, never as an unhandled rejection', async () => {
    const writes = createWriteBehind()
    const done: string[] = []
    let release!: () => void
    writes.defer(new Promise<void>((resolve) => (release = resolve)).then(() => void done.push('slow')))
    writes.defer(Promise.reject(new Error('disk full')))
    writes.defer(Promise.resolve().then(() => void done.push('fast')))
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => unhandled.push(reason)
    process.on('unhandledRejection', onUnhandled)
    await new Promise((resolve) => setImmediate(resolve))
    process.off('unhandledRejection', onUnhandled)
    expect(unhandled).toEqual([])
    const flushed = writes.flush()
    release()
    await expect(flushed).rejects.toThrow('disk full')
    expect(done).toEqual(['fast', 'slow'])
    // a flush after it starts empty
    await expect(writes.flush()).resolves.toBeUndefined()
  })
})
