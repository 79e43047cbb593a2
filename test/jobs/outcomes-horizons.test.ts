import { describe, expect, it } from 'vitest'
import { type OutcomesJobDeps, runOutcomes } from '../../src/jobs/outcomes.job.js'
import { createLogger } from '../../src/logger.js'

/** Deps whose horizons find no plan dates; `datesFor` decides what each horizon's first read does. */
function depsWith(datesFor: (horizon: number) => Promise<string[]>, events: string[]): OutcomesJobDeps {
  return {
    outcomes: { datesWithoutOutcomes: (horizon: number) => datesFor(horizon) },
    signalIc: {
      datesWithoutIc: async (horizon: number) => {
        events.push(`ic ${horizon}`)
        return []
      },
    },
    market: { calendar: async () => ['2025-01-02', '2025-01-03'] },
    regimeOf: async () => null,
    latestBarDate: async () => '2025-01-03',
    benchmark: '000300.SH',
    log: createLogger({ logLevel: 'silent' }),
    horizons: [1, 5, 20],
    writeDayStats: async (horizon: number) => {
      events.push(`stats ${horizon}`)
      return 0
    },
    writeBookDays: async () => {
      events.push('book')
      return 3
    },
  } as unknown as OutcomesJobDeps
}

describe('outcomes step, horizons side by side', () => {
  it('counts every horizon, keys in horizon order, whichever finishes first', async () => {
    const events: string[] = []
    const delays: Record<number, number> = { 1: 30, 5: 0, 20: 10 }
    const deps = depsWith((h) => new Promise((resolve) => setTimeout(() => resolve([]), delays[h])), events)
    const result = await runOutcomes(deps, { date: '2025-01-03' }, new AbortController().signal)
    expect(Object.keys(result.written)).toEqual([
      'h1',
      'ic1',
      'stats1',
      'h5',
      'ic5',
      'stats5',
      'h20',
      'ic20',
      'stats20',
      'book',
    ])
    // they ran side by side: the quickest horizon's ICs came first; the book's facts once all are done
    expect(events[0]).toBe('ic 5')
    expect(events).toHaveLength(7)
    expect(events.at(-1)).toBe('book')
    expect(result.written.book).toBe(3)
  })

  it('a failing horizon fails the step only once the others have settled: no query left running', async () => {
    const events: string[] = []
    const deps = depsWith(async (h) => {
      if (h === 1) throw new Error('store went away')
      await new Promise((resolve) => setTimeout(resolve, 40))
      return []
    }, events)
    await expect(runOutcomes(deps, { date: '2025-01-03' }, new AbortController().signal)).rejects.toThrow(
      'store went away',
    )
    expect(events.sort()).toEqual(['ic 20', 'ic 5', 'stats 20', 'stats 5'])
  })
})
