import pg from 'pg'
import type { Logger } from '../logger.js'

export const TIER_DATES_CHANNEL = 'stockplan_tier_dates'
export const PLAN_WRITTEN_CHANNEL = 'stockplan_plan_written'

export interface LatestDate {
  /** The latest date of the tier score table; throws when it cannot be known. */
  get(): Promise<string | undefined>
  /** The known value without waiting, or `{known: false}` when it would have to be queried. */
  peek(): { known: true; value: string | undefined } | { known: false }
  /** Forget the known value (this process just wrote tier rows); other processes hear the NOTIFY. */
  invalidate(): void
  close(): Promise<void>
}

/**
 * The latest tier date without a query per request: a LISTEN connection hears every change to the tier table
 * (a statement trigger notifies), so the known value is re-read only after a change. While the listener is
 * down every call queries; if that fails too, the last known value stands (nobody can write to a store that is
 * down), and only with no value at all does the lookup fail.
 */
export function createLatestDate(deps: {
  url?: string
  query: () => Promise<string | undefined>
  log: Logger
  /** Called with the date whenever any process writes a date's plan (per-stock daily rows). */
  onPlanWritten?: (date: string) => void
  /** Called whenever any process changes the tier table (a build). */
  onTierChanged?: () => void
}): LatestDate {
  let known = false
  let value: string | undefined
  let hadValue = false
  let listening = false
  let client: pg.Client | undefined
  let closed = false
  let retryTimer: NodeJS.Timeout | undefined
  let retryMs = 500
  let changes = 0 // bumped by every notification, so a read racing a change is not trusted

  async function refresh(): Promise<string | undefined> {
    const seen = changes
    const latest = await deps.query()
    value = latest
    hadValue = true
    known = listening && seen === changes
    return latest
  }

  function scheduleReconnect(): void {
    if (closed || retryTimer) return
    retryTimer = setTimeout(() => {
      retryTimer = undefined
      void listen()
    }, retryMs)
    retryTimer.unref()
    retryMs = Math.min(retryMs * 2, 10_000)
  }

  async function listen(): Promise<void> {
    if (closed || !deps.url) return
    const c = new pg.Client({ connectionString: deps.url, connectionTimeoutMillis: 3000 })
    const lost = (): void => {
      if (client !== c) return
      listening = false
      known = false
      client = undefined
      c.end().catch(() => undefined)
      scheduleReconnect()
    }
    c.on('error', lost)
    c.on('end', lost)
    c.on('notification', (message) => {
      if (message.channel === PLAN_WRITTEN_CHANNEL) {
        if (message.payload) deps.onPlanWritten?.(message.payload)
        return
      }
      changes++
      known = false
      deps.onTierChanged?.()
    })
    try {
      await c.connect()
      await c.query(`listen ${TIER_DATES_CHANNEL}; listen ${PLAN_WRITTEN_CHANNEL}`)
      client = c
      listening = true
      changes++
      known = false
      retryMs = 500
    } catch (err) {
      deps.log.debug({ err: { message: (err as Error).message } }, 'tier date listener not connected')
      c.end().catch(() => undefined)
      scheduleReconnect()
    }
  }

  void listen()
  return {
    async get() {
      if (known) return value
      try {
        return await refresh()
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
      closed = true
      if (retryTimer) clearTimeout(retryTimer)
      const c = client
      client = undefined
      listening = false
      await c?.end().catch(() => undefined)
    },
  }
}
