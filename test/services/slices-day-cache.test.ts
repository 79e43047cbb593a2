import { describe, expect, it } from 'vitest'
import { DayCache } from '../../src/services/cache/day-cache.js'
import { mapInSlices } from '../../src/services/slices.js'

describe('mapInSlices', () => {
  it('maps in order and gives the event loop a turn after each slice of work', async () => {
    let clock = 0
    const events: string[] = []
    const items = [1, 2, 3, 4, 5, 6, 7]
    const done = mapInSlices(
      items,
      (n) => {
        clock += 4 // each item "takes" 4 ms
        events.push(`item ${n}`)
        if (n === 1) setImmediate(() => events.push('other work'))
        return n * 10
      },
      { sliceMs: 10, now: () => clock },
    )
    expect(await done).toEqual([10, 20, 30, 40, 50, 60, 70])
    // 12 ms after three items: the other work runs before the fourth
    expect(events.slice(0, 5)).toEqual(['item 1', 'item 2', 'item 3', 'other work', 'item 4'])
  })

  it('does not yield when the work fits in one slice', async () => {
    const events: string[] = []
    setImmediate(() => events.push('other work'))
    await mapInSlices([1, 2, 3], (n) => events.push(`item ${n}`), { sliceMs: 10, now: () => 0 })
    expect(events).toEqual(['item 1', 'item 2', 'item 3'])
  })

  it('runs one slice per event-loop turn across concurrent loops, taking turns, with I/O between slices', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1)) // the turns of earlier tests are over
    let clock = 0
    const events: string[] = []
    // a stand-in for I/O callbacks: one tick per event-loop turn while the loops run
    let ticking = true
    const tick = (): void => {
      if (!ticking) return
      events.push('tick')
      setImmediate(tick)
    }
    setImmediate(tick)
    const loop = (name: string) =>
      mapInSlices(
        [1, 2, 3, 4, 5, 6],
        (n) => {
          clock += 6 // two items fill a 10 ms slice
          events.push(`${name}${n}`)
          return n
        },
        { sliceMs: 10, now: () => clock },
      )
    const [a, b] = await Promise.all([loop('a'), loop('b')])
    ticking = false
    expect(a).toEqual([1, 2, 3, 4, 5, 6])
    expect(b).toEqual([1, 2, 3, 4, 5, 6])
    const slices = events
      .join(' ')
      .split('tick')
      .map((s) => s.trim())
      .filter((s) => s !== '')
    // never two slices without a turn of the loop between them: each stretch between ticks is one slice
    expect(slices).toHaveLength(6)
    for (const slice of slices) expect(slice).toMatch(/^([ab])(\d) \1(\d)$/)
    for (const name of ['a', 'b'])
      expect(slices.filter((slice) => slice.startsWith(name))).toEqual(
        [1, 3, 5].map((n) => `${name}${n} ${name}${n + 1}`),
      )
    // the loops take turns: once both have run a slice, one runs twice in a row only after the other is done
    // (where b's first slice falls depends on what else the worker's event loop is doing: not asserted)
    const names = slices.map((slice) => slice[0])
    const bothStarted = Math.max(names.indexOf('a'), names.indexOf('b'))
    expect(bothStarted, `slices ${slices.join(' | ')}`).toBeLessThanOrEqual(2)
    for (let i = bothStarted; i + 1 < names.length; i++) {
      if (names[i] !== names[i + 1]) continue
      const other = names[i] === 'a' ? 'b' : 'a'
      expect(
        names.slice(0, i + 1).filter((n) => n === other),
        `slices ${slices.join(' | ')}`,
      ).toHaveLength(3)
    }
  })
})

describe('DayCache', () => {
  it('keeps values per date, the newest dates only, and a bounded number of codes per date', () => {
    const cache = new DayCache<number>({ maxDates: 2, maxCodes: 2 })
    const one = Promise.resolve(1)
    cache.set('2026-11-18', 'A', one)
    cache.set('2026-11-18', 'B', Promise.resolve(2))
    cache.set('2026-11-18', 'C', Promise.resolve(3)) // over the per-date bound: not kept
    expect(cache.get('2026-11-18', 'A')).toBe(one)
    expect(cache.get('2026-11-18', 'C')).toBeUndefined()
    cache.set('2026-11-19', 'A', Promise.resolve(4))
    cache.set('2026-11-20', 'A', Promise.resolve(5)) // a third date evicts the oldest
    expect(cache.get('2026-11-18', 'A')).toBeUndefined()
    expect(cache.size('2026-11-19')).toBe(1)
    cache.forget('2026-11-19')
    expect(cache.get('2026-11-19', 'A')).toBeUndefined()
    cache.clear()
    expect(cache.get('2026-11-20', 'A')).toBeUndefined()
  })

  it('drops a rejected value, and delete leaves a replaced value alone', async () => {
    const cache = new DayCache<number>({ maxDates: 2, maxCodes: 10 })
    const failing = Promise.reject(new Error('store down'))
    cache.set('d', 'A', failing)
    await failing.catch(() => undefined)
    await new Promise((r) => setImmediate(r))
    expect(cache.get('d', 'A')).toBeUndefined()
    const first = Promise.resolve(1)
    const second = Promise.resolve(2)
    cache.set('d', 'B', first)
    cache.set('d', 'B', second)
    cache.delete('d', 'B', first)
    expect(cache.get('d', 'B')).toBe(second)
    cache.delete('d', 'B', second)
    expect(cache.get('d', 'B')).toBeUndefined()
  })
})
