import { sql } from 'kysely'
import type { Db } from './db.js'
import type { ChainRunStatus } from './schema.js'

/** SQL of the scheduler's runs and run log lines; the only Kysely code for `chain_runs` and `chain_run_lines`. */

export const LIVE_STATUSES = ['queued', 'running'] as const satisfies readonly ChainRunStatus[]

export interface NewRun {
  readonly logId: number
  readonly jobId: number
  readonly handler: string
  readonly params: string
  readonly blockStrategy: string
  readonly timeoutS: number
  readonly logDateTime: number
  readonly ownerId: string
  readonly ownerAddress: string | undefined
  readonly at: Date
}

export interface RunResult {
  readonly status: Exclude<ChainRunStatus, 'queued' | 'running'>
  readonly handleCode: number
  readonly handleMsg: string
}

export interface OrphanRun {
  readonly logId: number
  readonly ownerId: string
  readonly logDateTime: number
}

export interface LogPage {
  readonly finished: boolean
  /** Lines `>= from`, at most the page size, in order. */
  readonly lines: readonly {
    readonly lineNo: number
    readonly loggedAt: Date
    readonly step: string
    readonly text: string
  }[]
  /** The run's last line number (0 when it has none). */
  readonly lastLineNo: number
}

const UNIQUE_VIOLATION = '23505'

function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === UNIQUE_VIOLATION
}

/** A chain run from the CLI, kept once it ended: no XXL-JOB logId, no callback, its step lines as the scheduler's. */
export interface CliRun {
  readonly handler: string
  readonly params: string
  readonly ownerId: string
  readonly status: 'succeeded' | 'failed'
  /** The step it failed in, or the last it ran. */
  readonly step: string | null
  readonly handleMsg: string
  readonly startedAt: Date
  readonly finishedAt: Date
  readonly lines: readonly { readonly at: Date; readonly step: string; readonly text: string }[]
}

export interface RunStore {
  /**
   * Keeps a CLI run under the next negative log id (the admin's are positive), finished, with no callback: what the
   * alert rules read of a step's last success and failure then counts it too.
   */
  recordCliRun(run: CliRun): Promise<number>
  /** false when the logId exists already (a repeated trigger). */
  insert(run: NewRun): Promise<boolean>
  /** A run the block strategy discarded is not kept (the admin got the refusal as the reply). */
  remove(logId: number): Promise<void>
  markRunning(logId: number, ownerId: string, at: Date): Promise<void>
  /** Appends lines after the run's last one (one statement; retried once if another writer took the numbers). */
  appendLines(logId: number, step: string, texts: readonly string[], at: Date): Promise<void>
  /**
   * Closes a live run owned by `ownerId` and enqueues its callback, in one transaction. false when the run was no
   * longer live or owned (another executor closed it as an orphan meanwhile): nothing is written then.
   */
  finish(logId: number, ownerId: string, result: RunResult, step: string | null, at: Date): Promise<boolean>
  /** Beats the heartbeat of these live runs of this executor. */
  beat(ownerId: string, logIds: readonly number[], at: Date): Promise<void>
  /**
   * Live runs whose heartbeat is older than `staleBefore` (a dead owner, or one of ours nobody tracks any more),
   * plus, when `address` is given, the live runs another process left at that executor address.
   */
  findOrphans(ownerId: string, staleBefore: Date, address: string | undefined): Promise<OrphanRun[]>
  /** Closes an orphan as failed if it is still live and still the dead owner's; enqueues its callback. */
  closeOrphan(orphan: OrphanRun, handleMsg: string, at: Date): Promise<boolean>
  readLog(logId: number, fromLineNum: number, pageSize: number): Promise<LogPage | undefined>
}

export function createRunStore(db: Db): RunStore {
  const insertLines = (logId: number, step: string, texts: readonly string[], at: Date) =>
    sql`insert into chain_run_lines (log_id, line_no, logged_at, step, text)
      select ${logId}, coalesce((select max(line_no) from chain_run_lines where log_id = ${logId}), 0) + t.ord, ${at}, ${step}, t.text
      from unnest(${texts as string[]}::text[]) with ordinality as t(text, ord)`.execute(db)

  /** Closes a live run still owned by `ownerId` and enqueues its callback in the same transaction. */
  const closeRun = (
    logId: number,
    ownerId: string,
    result: RunResult,
    at: Date,
    step?: string | null,
  ): Promise<boolean> =>
    db.transaction().execute(async (trx) => {
      const closed = await trx
        .updateTable('chain_runs')
        .set({
          status: result.status,
          handle_code: result.handleCode,
          handle_msg: result.handleMsg,
          ...(step === undefined ? {} : { step }),
          finished_at: at,
        })
        .where('log_id', '=', logId)
        .where('owner_id', '=', ownerId)
        .where('status', 'in', LIVE_STATUSES)
        .returning('log_date_time')
        .executeTakeFirst()
      if (!closed) return false
      await trx
        .insertInto('callback_outbox')
        .values({
          log_id: logId,
          log_date_time: closed.log_date_time,
          handle_code: result.handleCode,
          handle_msg: result.handleMsg,
          next_attempt_at: at,
          created_at: at,
        })
        .onConflict((oc) => oc.column('log_id').doNothing())
        .execute()
      return true
    })

  const recordCliRun = (run: CliRun): Promise<number> =>
    db.transaction().execute(async (trx) => {
      // one writer at a time picks the next negative id
      await sql`select pg_advisory_xact_lock(hashtext('stockplan cli run ids'))`.execute(trx)
      const { rows } = await sql<{ id: string }>`
        select least(coalesce(min(log_id), 0), 0) - 1 as id from chain_runs where log_id < 0`.execute(trx)
      const logId = Number(rows[0]!.id)
      await trx
        .insertInto('chain_runs')
        .values({
          log_id: logId,
          job_id: 0,
          handler: run.handler,
          params: run.params,
          block_strategy: 'CLI',
          timeout_s: 0,
          log_date_time: run.startedAt.getTime(),
          status: run.status,
          step: run.step,
          handle_code: run.status === 'succeeded' ? 200 : 500,
          handle_msg: run.handleMsg,
          owner_id: run.ownerId,
          owner_address: null,
          heartbeat_at: run.finishedAt,
          created_at: run.startedAt,
          started_at: run.startedAt,
          finished_at: run.finishedAt,
        })
        .execute()
      if (run.lines.length > 0)
        await trx
          .insertInto('chain_run_lines')
          .values(
            run.lines.map((l, i) => ({ log_id: logId, line_no: i + 1, logged_at: l.at, step: l.step, text: l.text })),
          )
          .execute()
      return logId
    })

  return {
    recordCliRun,
    async insert(run) {
      const rows = await db
        .insertInto('chain_runs')
        .values({
          log_id: run.logId,
          job_id: run.jobId,
          handler: run.handler,
          params: run.params,
          block_strategy: run.blockStrategy,
          timeout_s: run.timeoutS,
          log_date_time: run.logDateTime,
          status: 'queued',
          owner_id: run.ownerId,
          owner_address: run.ownerAddress ?? null,
          heartbeat_at: run.at,
          created_at: run.at,
        })
        .onConflict((oc) => oc.column('log_id').doNothing())
        .returning('log_id')
        .execute()
      return rows.length === 1
    },

    async remove(logId) {
      await db.deleteFrom('chain_runs').where('log_id', '=', logId).execute()
    },

    async markRunning(logId, ownerId, at) {
      await db
        .updateTable('chain_runs')
        .set({ status: 'running', started_at: at, heartbeat_at: at })
        .where('log_id', '=', logId)
        .where('owner_id', '=', ownerId)
        .where('status', '=', 'queued')
        .execute()
    },

    async appendLines(logId, step, texts, at) {
      if (texts.length === 0) return
      try {
        await insertLines(logId, step, texts, at)
      } catch (err) {
        if (!isUniqueViolation(err)) throw err
        await insertLines(logId, step, texts, at)
      }
    },

    finish: (logId, ownerId, result, step, at) => closeRun(logId, ownerId, result, at, step),

    async beat(ownerId, logIds, at) {
      if (logIds.length === 0) return
      await db
        .updateTable('chain_runs')
        .set({ heartbeat_at: at })
        .where('log_id', 'in', logIds)
        .where('owner_id', '=', ownerId)
        .where('status', 'in', LIVE_STATUSES)
        .execute()
    },

    async findOrphans(ownerId, staleBefore, address) {
      const rows = await db
        .selectFrom('chain_runs')
        .select(['log_id', 'owner_id', 'log_date_time'])
        .where('status', 'in', LIVE_STATUSES)
        .where((eb) =>
          address === undefined
            ? eb('heartbeat_at', '<', staleBefore)
            : eb.or([
                eb('heartbeat_at', '<', staleBefore),
                eb.and([eb('owner_address', '=', address), eb('owner_id', '<>', ownerId)]),
              ]),
        )
        .orderBy('log_id')
        .limit(500)
        .execute()
      return rows.map((r) => ({ logId: r.log_id, ownerId: r.owner_id, logDateTime: r.log_date_time }))
    },

    closeOrphan: (orphan, handleMsg, at) =>
      closeRun(orphan.logId, orphan.ownerId, { status: 'failed', handleCode: 500, handleMsg }, at),

    async readLog(logId, fromLineNum, pageSize) {
      // One statement, so one snapshot: the page, the run's state and its last line number agree even while the
      // run appends (two reads on two pooled connections could see an empty page and a later last line).
      const { rows } = await sql<{
        status: ChainRunStatus
        last: number | null
        line_no: number | null
        logged_at: Date | null
        step: string | null
        text: string | null
      }>`select r.status, m.last, p.line_no, p.logged_at, p.step, p.text
        from chain_runs r
        cross join lateral (select max(l.line_no) as last from chain_run_lines l where l.log_id = r.log_id) m
        left join lateral (
          select l.line_no, l.logged_at, l.step, l.text from chain_run_lines l
          where l.log_id = r.log_id and l.line_no >= ${fromLineNum}
          order by l.line_no limit ${pageSize}
        ) p on true
        where r.log_id = ${logId}
        order by p.line_no`.execute(db)
      const run = rows[0]
      if (!run) return undefined
      const lines = []
      for (const r of rows) {
        if (r.line_no === null) continue
        lines.push({ lineNo: r.line_no, loggedAt: r.logged_at as Date, step: r.step as string, text: r.text as string })
      }
      return {
        finished: !(LIVE_STATUSES as readonly string[]).includes(run.status),
        lines,
        lastLineNo: Number(run.last ?? 0),
      }
    },
  }
}
