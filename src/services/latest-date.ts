import type { Logger } from '../logger.js'
import type { ListenForStoreChanges } from '../storage/store-changes.js'
import { deadlineProbe } from './deadline.js'

export interface LatestDate {
  /** The latest date of the tier score table; throws when it cannot be known. */
  get(): Promise<string | undefined>
  /** The known value without waiting, or `{known: false}` when it would have to be queried. */
  peek(): { known: true; value: string | undefined } | { known: false }
  /** Forget the known value (this process just wrote tier rows); other processes hear the NOTIFY. */
  invalidate(): void
  close(): Promise<void>
}

export interface LatestDateTimings {
  /** Longest a caller waits for the store before the last known date stands. */
  readonly lookupMs: number
  /** With no date known yet there is nothing to fall back to: the caller waits this long instead. */
  readonly firstLookupMs: number
}

export const LATEST_DATE_TIMINGS: LatestDateTimings = {
  lookupMs: 1000,
  firstLookupMs: 5000,
}

/**
 * The latest tier date without a query per request: the store's change listener hears every change to the
 * tier table (a statement trigger notifies), so the known value is re-read only after a change. While the
 * listener is down (or there is none) every call queries, within a deadline; if that fails too, the last known
 * value stands, and only with no value at all does the lookup fail. When the listener is back after a loss,
 * what was known is forgotten (`onResync`): another process may have written meanwhile.
 */
export function createLatestDate(deps: {
  /** The store's change listener; without one every call queries. */
  listen?: ListenForStoreChanges
  query: () => Promise<string | undefined>
  log: Logger
  /** Called with the date whenever any process writes a date's plan (per-stock daily rows). */
  onPlanWritten?: (date: string) => void
  /** Called whenever any process changes the tier table (a build). */
  onTierChanged?: () => void
  /** Called when the listener is back after a loss: notifications may have been missed. */
  onResync?: () => void
  timings?: Partial<LatestDateTimings>
}): LatestDate {
  const timings = { ...LATEST_DATE_TIMINGS, ...deps.timings }
  let known = false
  let value: string | undefined
  let hadValue = false
  let listening = false
  let changes = 0 // bumped by every notification, so a read racing a change is not trusted
  const lookup = deadlineProbe(
    async () => {
      const seen = changes
      const latest = await deps.query()
      value = latest
      hadValue = true
      known = listening && seen === changes
      return latest
    },
    timings.lookupMs,
    'the store (latest tier date)',
  )

  const listener = deps.listen?.({
    listening(missedSome) {
      listening = true
      changes++
      known = false
      if (missedSome) {
        deps.log.info('tier date listener reconnected; re-reading the latest date')
        deps.onResync?.()
        lookup().catch(() => undefined)
      }
    },
    notListening() {
      listening = false
      known = false
    },
    tierChanged() {
      changes++
      known = false
      deps.onTierChanged?.()
    },
    planWritten: (date) => deps.onPlanWritten?.(date),
  })

  return {
    async get() {
      if (known) return value
      try {
        return await lookup(hadValue ? timings.lookupMs : timings.firstLookupMs)
      } catch (err) {
        if (hadValue) return value
        throw err
      }
    },
    peek() {
      return known ? { known: true, value } : { known: false }
    },
    invalidate() {
      changes++
      known = false
    },
    async close() {
      listening = false
      await listener?.close()
    },
  }
}
