/**
 * What other processes change in the store, heard as it happens: one LISTEN connection on the channels the
 * tier table's and the daily plan rows' triggers notify (migrations 0001 and 0002). The connection proves
 * itself alive with a heartbeat, is renewed now and then (so it never holds up a smart shutdown of the
 * database), and reconnects with backoff after a loss.
 */
import pg from 'pg'
import type { Logger } from '../logger.js'

export const TIER_DATES_CHANNEL = 'stockplan_tier_dates'
export const PLAN_WRITTEN_CHANNEL = 'stockplan_plan_written'

export interface StoreChangeHandlers {
  /** Listening (again). `missedSome` after a loss or a failed first connect: changes may have gone unheard. */
  listening(missedSome: boolean): void
  /** Not listening for now (lost, or renewing the session); the listener reconnects by itself. */
  notListening(): void
  /** Some process changed the tier table. */
  tierChanged(): void
  /** Some process wrote the plan (per-stock daily rows) of `date`. */
  planWritten(date: string): void
}

export interface StoreChangeListener {
  close(): Promise<void>
}

/** Starts listening; `handlers` hear everything until `close`. */
export type ListenForStoreChanges = (handlers: StoreChangeHandlers) => StoreChangeListener

export interface StoreChangeTimings {
  /** How often the connection proves it is alive, and how long it may take to. */
  readonly heartbeatMs: number
  readonly heartbeatDeadlineMs: number
  /** The session is renewed this often, so that it never holds up a smart shutdown of the database. */
  readonly sessionMs: number
  readonly retryMinMs: number
  readonly retryMaxMs: number
}

export const STORE_CHANGE_TIMINGS: StoreChangeTimings = {
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

export function storeChangeListener(options: {
  url: string
  log: Logger
  timings?: Partial<StoreChangeTimings>
}): ListenForStoreChanges {
  const timings = { ...STORE_CHANGE_TIMINGS, ...options.timings }
  const { log } = options
  return (handlers) => {
    let client: pg.Client | undefined
    let closed = false
    let lostOnce = false
    let retryTimer: NodeJS.Timeout | undefined
    let heartbeatTimer: NodeJS.Timeout | undefined
    let retryMs = timings.retryMinMs

    function scheduleReconnect(): void {
      if (closed || retryTimer) return
      retryTimer = setTimeout(() => {
        retryTimer = undefined
        void listen()
      }, retryMs)
      retryTimer.unref()
      retryMs = Math.min(retryMs * 2, timings.retryMaxMs)
    }

    function stopHeartbeat(): void {
      if (heartbeatTimer) clearInterval(heartbeatTimer)
      heartbeatTimer = undefined
    }

    function lose(c: pg.Client, why: string): void {
      if (client !== c) return
      log.debug({ why }, 'tier date listener lost')
      client = undefined
      lostOnce = true
      stopHeartbeat()
      handlers.notListening()
      drop(c)
      scheduleReconnect()
    }

    // renewed, not lost: a notification in the gap is caught by the listener's re-read once reconnected
    function renew(c: pg.Client): void {
      client = undefined
      stopHeartbeat()
      handlers.notListening()
      drop(c)
      retryMs = timings.retryMinMs
      void listen()
    }

    function startHeartbeat(c: pg.Client): void {
      const openedAt = Date.now()
      let beating = false
      heartbeatTimer = setInterval(() => {
        if (client !== c || beating) return
        if (Date.now() - openedAt >= timings.sessionMs) return renew(c)
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
      if (closed || client) return
      const c = new pg.Client({ connectionString: options.url, connectionTimeoutMillis: 3000, keepAlive: true })
      c.on('error', (err) => lose(c, err.message))
      c.on('end', () => lose(c, 'connection ended'))
      c.on('notification', (message) => {
        if (message.channel === PLAN_WRITTEN_CHANNEL) {
          if (message.payload) handlers.planWritten(message.payload)
          return
        }
        handlers.tierChanged()
      })
      try {
        await c.connect()
        await c.query(`listen ${TIER_DATES_CHANNEL}; listen ${PLAN_WRITTEN_CHANNEL}`)
      } catch (err) {
        log.debug({ err: { message: (err as Error).message } }, 'tier date listener not connected')
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
      retryMs = timings.retryMinMs
      startHeartbeat(c)
      const missedSome = lostOnce
      lostOnce = false
      handlers.listening(missedSome)
    }

    void listen()
    return {
      async close() {
        closed = true
        if (retryTimer) clearTimeout(retryTimer)
        stopHeartbeat()
        const c = client
        client = undefined
        if (c) drop(c)
      },
    }
  }
}
