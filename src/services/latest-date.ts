import pg from 'pg'
import type { Logger } from '../logger.js'
import { deadlineProbe } from './deadline.js'

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

export interface LatestDateTimings {
  /** Longest a caller waits for the store before the last known date stands. */
  readonly lookupMs: number
  /** With no date known yet there is nothing to fall back to: the caller waits this long instead. */
  readonly firstLookupMs: number
  /** How often the LISTEN connection proves it is alive, and how long it may take to. */
  readonly heartbeatMs: number
  readonly heartbeatDeadlineMs: number
  /** The LISTEN session is renewed this often, so that it never holds up a smart shutdown of the database. */
  readonly sessionMs: number
  readonly retryMinMs: number
  readonly retryMaxMs: number
}

export const LATEST_DATE_TIMINGS: LatestDateTimings = {
  lookupMs: 1000,
  firstLookupMs: 5000,
  heartbeatMs: 5000,
  heartbeatDeadlineMs: 2000,
  sessionMs: 30_000,
  retryMinMs: 250,
  retryMaxMs: 5000,
}

/** Ends a client at once, even when its server is frozen (`end()` would wait for the server's goodbye). */
function drop(client: pg.Client): void {
  const stream = (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream
  stream?.destroy()
  client.end().catch(() => undefined)
}

/**
 * The latest tier date without a query per request: a LISTEN connection hears every change to the tier table
 * (a statement trigger notifies), so the known value is re-read only after a change. While the listener is
 * down every call queries, within a deadline; if that fails too, the last known value stands, and only with
 * no value at all does the lookup fail. The listener proves itself alive with a heartbeat, reconnects with
 * backoff, and on reconnecting forgets what it knew (`onResync`): another process may have written meanwhile.
 */
export function createLatestDate(deps: {
  url?: string
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
  let client: pg.Client | undefined
  let closed = false
  let lostOnce = false
  let retryTimer: NodeJS.Timeout | undefined
  let heartbeatTimer: NodeJS.Timeout | undefined
  let retryMs = timings.retryMinMs
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

  function scheduleReconnect(): void {
    if (closed || retryTimer) return
    retryTimer = setTimeout(() => {
      retryTimer = undefined
      void listen()
    }, retryMs)
    retryTimer.unref()
    retryMs = Math.min(retryMs * 2, timings.retryMaxMs)
  }

  function lose(c: pg.Client, why: string): void {
    if (client !== c) return
    deps.log.debug({ why }, 'tier date listener lost')
    listening = false
    known = false
    client = undefined
    lostOnce = true
    if (heartbeatTimer) clearInterval(heartbeatTimer)
    heartbeatTimer = undefined
    drop(c)
    scheduleReconnect()
  }

  function startHeartbeat(c: pg.Client): void {
    const openedAt = Date.now()
    let beating = false
    heartbeatTimer = setInterval(() => {
      if (client !== c || beating) return
      if (Date.now() - openedAt >= timings.sessionMs) {
        // renewed, not lost: a notification in the gap is caught by re-reading once reconnected
        listening = false
        known = false
        client = undefined
        if (heartbeatTimer) clearInterval(heartbeatTimer)
        heartbeatTimer = undefined
        drop(c)
        retryMs = timings.retryMinMs
        void listen()
        return
      }
      beating = true
      const timeout = setTimeout(() => lose(c, 'heartbeat timed out'), timings.heartbeatDeadlineMs)
      c.query('select 1').then(
        () => {
          clearTimeout(timeout)
          beating = false
        },
        (err: Error) => {
          clearTimeout(timeout)
          beating = false
          lose(c, err.message)
        },
      )
    }, timings.heartbeatMs)
    heartbeatTimer.unref()
  }

  async function listen(): Promise<void> {
    if (closed || !deps.url || client) return
    const c = new pg.Client({ connectionString: deps.url, connectionTimeoutMillis: 3000, keepAlive: true })
    c.on('error', (err) => lose(c, err.message))
    c.on('end', () => lose(c, 'connection ended'))
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
    } catch (err) {
      deps.log.debug({ err: { message: (err as Error).message } }, 'tier date listener not connected')
      lostOnce = true
      drop(c)
      scheduleReconnect()
      return
    }
    if (closed) {
      drop(c)
      return
    }
    client = c
    listening = true
    changes++
    known = false
    retryMs = timings.retryMinMs
    startHeartbeat(c)
    if (lostOnce) {
      lostOnce = false
      deps.log.info('tier date listener reconnected; re-reading the latest date')
      deps.onResync?.()
      lookup().catch(() => undefined)
    }
  }

  void listen()
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
      closed = true
      if (retryTimer) clearTimeout(retryTimer)
      if (heartbeatTimer) clearInterval(heartbeatTimer)
      const c = client
      client = undefined
      listening = false
      if (c) drop(c)
    },
  }
}
