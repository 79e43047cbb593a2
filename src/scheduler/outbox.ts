import { errorText } from '../errors.js'
import type { Logger } from '../logger.js'
import type { CallbackOutboxRepository, ClaimedCallback } from '../storage/callback-outbox.repository.js'
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
  /**
   * The last flush at shutdown: an attempt at every pending row due within the longest retry delay, and again at a
   * row whose attempt failed when its retry falls due, until `budgetMs` has passed.
   */
  flushAll(budgetMs: number): Promise<void>
  pendingCount(): Promise<number>
}

export interface OutboxOptions {
  readonly callbacks: CallbackOutboxRepository
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

const BATCH = 100

/** The run log gets the first few failed attempts, then every 20th, so a long outage does not flood it. */
const logsAttempt = (attempt: number): boolean => attempt <= 5 || attempt % 20 === 0

export function retryDelay(delays: readonly number[], attempts: number): number {
  const delay = delays[Math.min(Math.max(attempts, 1), delays.length) - 1]
  return delay ?? 30_000
}

async function noteLines(o: OutboxOptions, logId: number, texts: readonly string[]): Promise<void> {
  try {
    await o.appendLines(logId, texts)
  } catch (err) {
    o.log.warn({ logId, err: { message: errorText(err) } }, 'xxl-job: cannot append a callback line to the run log')
  }
}

async function recordFailure(o: OutboxOptions, rows: readonly ClaimedCallback[], error: string): Promise<void> {
  const at = o.now()
  for (const row of rows) {
    const attempt = row.attempts + 1
    const delay = retryDelay(o.retryDelaysMs, attempt)
    await o.callbacks.markFailed(row.log_id, attempt, at, error, new Date(at.getTime() + delay))
    if (logsAttempt(attempt)) {
      await noteLines(o, row.log_id, [
        `----------- xxl-job job callback fail (attempt ${attempt}, next in ${delay} ms), callbackResult: ${error}`,
      ])
    }
  }
  o.log.warn(
    { logIds: rows.map((r) => r.log_id), attempts: rows.map((r) => r.attempts + 1), error },
    'xxl-job: callback failed, will retry',
  )
}

/** One batch: true when a full batch went out (more may be due). */
async function deliverBatch(o: OutboxOptions, dueBy: Date): Promise<boolean> {
  const rows = await o.callbacks.claim(dueBy, new Date(o.now().getTime() + o.leaseMs), BATCH)
  if (rows.length === 0) return false
  const items: CallbackItem[] = rows.map((r) => ({
    logId: r.log_id,
    logDateTim: r.log_date_time,
    handleCode: r.handle_code,
    handleMsg: capHandleMsg(r.handle_msg),
  }))
  const ids = rows.map((r) => r.log_id)
  const result = await o.admin.post('callback', items)
  if (!result.ok) {
    await recordFailure(o, rows, result.error)
    return false
  }
  await o.callbacks.markDelivered(ids, o.now())
  o.log.info({ logIds: ids, admin: result.address }, 'xxl-job: callback delivered')
  for (const row of rows)
    await noteLines(o, row.log_id, [`----------- xxl-job job callback finish. (${result.address})`])
  return rows.length === BATCH
}

/** How long the loop sleeps: until the next row falls due, at most `pollMs`. */
async function nextWait(o: OutboxOptions): Promise<number> {
  try {
    const next = await o.callbacks.nextDueAt()
    if (next === undefined) return o.pollMs
    return Math.min(Math.max(next.getTime() - o.now().getTime(), 0), o.pollMs)
  } catch (err) {
    o.log.warn({ err: { message: errorText(err) } }, 'xxl-job: cannot read the callback outbox')
    return retryDelay(o.retryDelaysMs, o.retryDelaysMs.length)
  }
}

/** Every due batch, once; never throws. */
async function deliverDue(o: OutboxOptions, dueBy: () => Date): Promise<void> {
  try {
    while (await deliverBatch(o, dueBy())) {
      // a full batch went out: more may be due
    }
  } catch (err) {
    o.log.warn({ err: { message: errorText(err) } }, 'xxl-job: callback delivery pass failed')
  }
}

export function createOutbox(options: OutboxOptions): Outbox {
  const { admin, now } = options
  let started = false
  let timer: NodeJS.Timeout | undefined
  let inFlight: Promise<void> | undefined
  let again = false
  let warnedNoAdmin = false

  async function pass(dueBy: () => Date): Promise<void> {
    if (admin.enabled) return deliverDue(options, dueBy)
    if (!warnedNoAdmin) {
      warnedNoAdmin = true
      options.log.warn('xxl-job: no XXLJOB_ADMIN_ADDRESSES: run callbacks stay pending in callback_outbox')
    }
  }

  /** Passes until nothing kicked meanwhile, then sleeps until the next row is due. */
  async function loop(): Promise<void> {
    do {
      again = false
      await pass(now)
    } while (again && started)
    if (!started || !admin.enabled) return
    const wait = await nextWait(options)
    if (!started) return
    clearTimeout(timer)
    timer = setTimeout(run, wait)
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
    inFlight = loop().finally(() => {
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
    async flushAll(budgetMs) {
      await inFlight
      // rows another replica holds under a lease (due far later than any backoff) stay theirs
      const horizon = Math.max(...options.retryDelaysMs, 0) + 1
      const deadline = now().getTime() + budgetMs
      for (;;) {
        await pass(() => new Date(now().getTime() + horizon))
        const next = admin.enabled ? await options.callbacks.nextDueAt().catch(() => undefined) : undefined
        if (next === undefined || next.getTime() > deadline) return
        // at least the first backoff: a row left due by a failing claim is not retried in a tight loop
        const wait = Math.max(next.getTime() - now().getTime(), options.retryDelaysMs[0] ?? 1_000)
        await new Promise((resolve) => setTimeout(resolve, wait))
      }
    },
    pendingCount: () => options.callbacks.pendingCount(),
  }
}
