import { describe, expect, it } from 'vitest'
import { heldMain } from '../../src/services/held-main.js'

/** Published plans by date; `null` is a tier date whose plan was not published. */
function mains(published: Record<string, string[] | null>) {
  const dates = Object.keys(published).sort()
  const reads: string[] = []
  return {
    reads,
    previousTierDate: async (date: string) => dates.filter((d) => d < date).at(-1),
    storedMain: async (date: string) => {
      reads.push(date)
      return published[date] ?? undefined
    },
  }
}

describe('heldMain: yesterday’s main with its holding streaks, read from the published plans', () => {
  it('reads back at most the horizon and counts each name’s days in a row', async () => {
    const store = mains({
      '2025-03-03': ['A'],
      '2025-03-04': ['A', 'B'],
      '2025-03-05': ['A', 'B'],
      '2025-03-06': ['A', 'B', 'C'],
    })
    expect(Object.fromEntries(await heldMain('2025-03-07', 20, store))).toEqual({ A: 4, B: 3, C: 1 })
    store.reads.length = 0
    expect(Object.fromEntries(await heldMain('2025-03-07', 2, store))).toEqual({ A: 2, B: 2, C: 1 })
    expect(store.reads).toEqual(['2025-03-06', '2025-03-05'])
  })

  it('a date without a published plan ends every streak there', async () => {
    const store = mains({ '2025-03-03': ['A'], '2025-03-04': null, '2025-03-05': ['A'] })
    expect(Object.fromEntries(await heldMain('2025-03-06', 20, store))).toEqual({ A: 1 })
    expect((await heldMain('2025-03-03', 20, store)).size).toBe(0)
  })
})
