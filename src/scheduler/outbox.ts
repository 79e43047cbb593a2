import { sql } from 'kysely'
import { errorText } from '../errors.js'
import type { Logger } from '../logger.js'
import type { Db } from '../storage/db.js'
import type { AdminClient } from './admin-client.js'
import { type CallbackItem, capHandleMsg } from './protocol.js'

/**
 * Callback delivery. A finished run's callback sits in `callback_outbox` (written in the transaction that closed
 * the run); this loop POSTs due rows to `<admin>/api/callback` as one JSON array, marks them delivered when an admin
 * answers code 200 and otherwise backs off per row: `retryDelaysMs[attempts - 1]`, the last delay repeating.
 * Rows are claimed with `for update skip locked` plus a lease, so replicas sharing the table never send a row twice
 * at once; a delivered row is never sent again.
 */
export interface Outbox {
  /** Starts the loop: pending rows (a previous process's too) are delivered at once. */
  start(): void
  /** Wakes the loop: a row was just enqueued. */
  kick(): void
  /** Stops the loop and waits for a pass in flight. */
  stop(): Promise<void>
  /** One attempt at every pending row due within the longest retry delay (the last flush at shutdown). */
  flushAll(): Promise<void>
  pendingCount(): Promise<number>
}

export interface OutboxOptions {
  readonly db: Db
  readonly log: Logger
  readonly admin: AdminClient
  readonly now: () => Date
  readonly retryDelaysMs: readonly number[]
  /** Upper bound of an idle wait: rows enqueued by another replica or an orphan sweep are seen this often. */
  readonly pollMs: number
  /** How long a claimed row stays invisible to other replicas while its POST is in flight; above every retry delay. */
  readonly leaseMs: number
  readonly appendLines: (logId: number, texts: readonly string[]) => Promise<void>
}

interface ClaimedRow {
  log_id: number
  log_date_time: number
  handle_code: number
  handle_msg: string
  attempts: number
}

const BATCH = 100

/** The run log gets the first few failed attempts, then every 20th, so a long outage does not flood it. */
const logsAttempt = (attempt: number): boolean => attempt <= 5 || attempt % 20 === 0

export function retryDelay(delays: readonly number[], attempts: number): number {
  const delay = delays[Math.min(Math.max(attempts, 1), delays.length) - 1]
  return delay ?? 30_000
}

export function createOutbox(options: OutboxOptions): Outbox {
  const { db, log, admin, now } = options
  let started = false
  let timer: NodeJS.Timeout | undefined
  let inFlight: Promise<void> | undefined
  let again = false
  let warnedNoAdmin = false

  async function claim(dueBy: Date): Promise<ClaimedRow[]> {
    const leaseUntil = new Date(now().getTime() + options.leaseMs)
    const result = await sql<ClaimedRow>`
      update callback_outbox set next_attempt_at = ${leaseUntil}
      where log_id in (
        select log_id from callback_outbox
        where delivered_at is null and next_attempt_at <= ${dueBy}
        order by created_at, log_id limit ${BATCH} for update skip locked)
      returning log_id, log_date_time, handle_code, handle_msg, attempts`.execute(db)
    return [...result.rows].sort((a, b) => a.log_id - b.log_id)
  }

  async function noteLines(logId: number, texts: readonly string[]): Promise<void> {
    try {
      await options.appendLines(logId, texts)
    } catch (err) {
      log.warn({ logId, err: { message: errorText(err) } }, 'xxl-job: cannot append a callback line to the run log')
    }
  }

  /** One batch: true when a full batch went out (more may be due). */
  async function deliverBatch(dueBy: Date): Promise<boolean> {
    const rows = await claim(dueBy)
    if (rows.length === 0) return false
    const items: CallbackItem[] = rows.map((r) => ({
      logId: r.log_id,
      logDateTim: r.log_date_time,
      handleCode: r.handle_code,
      handleMsg: capHandleMsg(r.handle_msg),
    }))
    const ids = rows.map((r) => r.log_id)
    const result = await admin.post('callback', items)
    const at = now()
    if (result.ok) {
      await db
        .updateTable('callback_outbox')
        .set((eb) => ({ delivered_at: at, last_attempt_at: at, last_error: null, attempts: eb('attempts', '+', 1) }))
        .where('log_id', 'in', ids)
        .execute()
      log.info({ logIds: ids, admin: result.address }, 'xxl-job: callback delivered')
      for (const row of rows)
        await noteLines(row.log_id, [`----------- xxl-job job callback finish. (${result.address})`])
      return rows.length === BATCH
    }
    for (const row of rows) {
      const attempt = row.attempts + 1
      const delay = retryDelay(options.retryDelaysMs, attempt)
      await db
        .updateTable('callback_outbox')
        .set({
          attempts: attempt,
          last_attempt_at: at,
          last_error: result.error,
          next_attempt_at: new Date(at.getTime() + delay),
        })
        .where('log_id', '=', row.log_id)
        .execute()
      if (logsAttempt(attempt)) {
        await noteLines(row.log_id, [
          `----------- xxl-job job callback fail (attempt ${attempt}, next in ${delay} ms), callbackResult: ${result.error}`,
        ])
      }
    }
    log.warn(
      { logIds: ids, attempts: rows.map((r) => r.attempts + 1), error: result.error },
      'xxl-job: callback failed, will retry',
    )
    return false
  }

  async function nextWait(): Promise<number> {
    try {
      const row = await db
        .selectFrom('callback_outbox')
        .select((eb) => eb.fn.min('next_attempt_at').as('next'))
        .where('delivered_at', 'is', null)
        .executeTakeFirst()
      const next = row?.next
      if (next === null || next === undefined) return options.pollMs
      const wait = new Date(next as Date | string).getTime() - now().getTime()
      return Math.min(Math.max(wait, 0), options.pollMs)
    } catch (err) {
      log.warn({ err: { message: errorText(err) } }, 'xxl-job: cannot read the callback outbox')
      return retryDelay(options.retryDelaysMs, options.retryDelaysMs.length)
    }
  }

  async function pass(dueBy: () => Date): Promise<void> {
    if (!admin.enabled) {
      if (!warnedNoAdmin) {
        warnedNoAdmin = true
        log.warn('xxl-job: no XXLJOB_ADMIN_ADDRESSES: run callbacks stay pending in callback_outbox')
      }
      return
    }
    try {
      while (await deliverBatch(dueBy())) {
        // a full batch went out: more may be due
      }
    } catch (err) {
      log.warn({ err: { message: errorText(err) } }, 'xxl-job: callback delivery pass failed')
    }
  }

  function schedule(ms: number): void {
    if (!started) return
    clearTimeout(timer)
    timer = setTimeout(run, ms)
    timer.unref()
  }

  function run(): void {
    if (!started) return
    if (inFlight) {
      again = true
      return
    }
    clearTimeout(timer)
    timer = undefined
    inFlight = (async () => {
      do {
        again = false
        await pass(now)
      } while (again && started)
      if (started && admin.enabled) schedule(await nextWait())
    })().finally(() => {
      inFlight = undefined
    })
  }

  return {
    start() {
      if (started) return
      started = true
      run()
    },
    kick: run,
    async stop() {
      started = false
      clearTimeout(timer)
      timer = undefined
      await inFlight
    },
    async flushAll() {
      await inFlight
      // rows another replica holds under a lease (due far later than any backoff) stay theirs
      const horizon = Math.max(...options.retryDelaysMs, 0) + 1
      await pass(() => new Date(now().getTime() + horizon))
    },
    async pendingCount() {
      const row = await db
        .selectFrom('callback_outbox')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('delivered_at', 'is', null)
        .executeTakeFirst()
      return Number(row?.n ?? 0)
    },
  }
}
