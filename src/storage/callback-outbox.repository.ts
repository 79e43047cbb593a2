import { sql } from 'kysely'
import type { Db } from './db.js'

/** SQL of the scheduler's callback outbox (`callback_outbox`); rows are enqueued by the run repository. */

export interface ClaimedCallback {
  readonly log_id: number
  readonly log_date_time: number
  readonly handle_code: number
  readonly handle_msg: string
  readonly attempts: number
}

export interface CallbackOutboxRepository {
  /**
   * Claims up to `limit` undelivered rows due by `dueBy`, oldest first, hiding them from other replicas until
   * `leaseUntil` (`for update skip locked`: two replicas never claim one row). Sorted by logId.
   */
  claim(dueBy: Date, leaseUntil: Date, limit: number): Promise<ClaimedCallback[]>
  markDelivered(logIds: readonly number[], at: Date): Promise<void>
  markFailed(logId: number, attempts: number, at: Date, error: string, nextAttemptAt: Date): Promise<void>
  /** When the next undelivered row falls due; undefined when none waits. */
  nextDueAt(): Promise<Date | undefined>
  pendingCount(): Promise<number>
}

export function createCallbackOutboxRepository(db: Db): CallbackOutboxRepository {
  return {
    async claim(dueBy, leaseUntil, limit) {
      const result = await sql<ClaimedCallback>`
        update callback_outbox set next_attempt_at = ${leaseUntil}
        where log_id in (
          select log_id from callback_outbox
          where delivered_at is null and next_attempt_at <= ${dueBy}
          order by created_at, log_id limit ${limit} for update skip locked)
        returning log_id, log_date_time, handle_code, handle_msg, attempts`.execute(db)
      return [...result.rows].sort((a, b) => a.log_id - b.log_id)
    },
    async markDelivered(logIds, at) {
      await db
        .updateTable('callback_outbox')
        .set((eb) => ({ delivered_at: at, last_attempt_at: at, last_error: null, attempts: eb('attempts', '+', 1) }))
        .where('log_id', 'in', logIds)
        .execute()
    },
    async markFailed(logId, attempts, at, error, nextAttemptAt) {
      await db
        .updateTable('callback_outbox')
        .set({ attempts, last_attempt_at: at, last_error: error, next_attempt_at: nextAttemptAt })
        .where('log_id', '=', logId)
        .execute()
    },
    async nextDueAt() {
      const row = await db
        .selectFrom('callback_outbox')
        .select((eb) => eb.fn.min('next_attempt_at').as('next'))
        .where('delivered_at', 'is', null)
        .executeTakeFirst()
      const next = row?.next
      return next === null || next === undefined ? undefined : new Date(next as Date | string)
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
