import { sql } from 'kysely'
import type { CalendarWindow } from '../domain/plan-due.js'
import type { Db } from './db.js'

/** The store's side of `/metrics`: small reads an operator's alert rules need, each an index or a small table. */

export interface StepFacts {
  readonly step: string
  readonly lastStartAt: Date | undefined
  readonly lastSuccessAt: Date | undefined
  /** From the last successful run's `[step] start` line to its `[step] ok` line. */
  readonly lastSuccessSeconds: number | undefined
  /** When the last run that failed in this step (failed, timed out or killed) was closed. */
  readonly lastFailureAt: Date | undefined
}

export interface OutboxFacts {
  readonly depth: number
  /** When the oldest undelivered callback was written; undefined when none waits. */
  readonly oldestCreatedAt: Date | undefined
}

/** The rows of a published plan's lists: its default cut's `main` and `observe`, as the day's verdicts stored them. */
export interface PlanRows {
  readonly main: number
  readonly observe: number
}

export interface MonitoringRepository {
  calendarWindow(from: string, to: string): Promise<CalendarWindow>
  /** Open days of the stored calendar after `today`: the sessions known ahead. */
  futureSessions(today: string): Promise<number>
  /** undefined: the plan step has not written the date's daily rows (a build published its tier rows before it). */
  planRows(date: string): Promise<PlanRows | undefined>
  /** The oldest trading day a sync stored incomplete and has not completed since. */
  oldestIncompleteSyncedDay(): Promise<string | undefined>
  /** Per step of the scheduler's runs created since `since` (the run log's `[step] start` / `[step] ok` lines). */
  chainSteps(since: Date): Promise<StepFacts[]>
  outbox(): Promise<OutboxFacts>
}

export function createMonitoringRepository(db: Db): MonitoringRepository {
  return {
    async calendarWindow(from, to) {
      const [rows, bounds] = await Promise.all([
        db
          .selectFrom('trading_calendar')
          .select('cal_date')
          .where('is_open', '=', true)
          .where('cal_date', '>=', from)
          .where('cal_date', '<=', to)
          .execute(),
        db
          .selectFrom('trading_calendar')
          .select((eb) => [eb.fn.min('cal_date').as('first'), eb.fn.max('cal_date').as('last')])
          .executeTakeFirst(),
      ])
      return {
        open: new Set(rows.map((r) => r.cal_date)),
        first: bounds?.first ?? undefined,
        last: bounds?.last ?? undefined,
      }
    },

    async futureSessions(today) {
      const row = await db
        .selectFrom('trading_calendar')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('is_open', '=', true)
        .where('cal_date', '>', today)
        .executeTakeFirst()
      return Number(row?.n ?? 0)
    },

    async planRows(date) {
      const { rows } = await sql<{ published: boolean; main: string; observe: string }>`
        select exists (select from plan_dates where trade_date = ${date}) as published,
          count(*) filter (where verdict = 'main') as main, count(*) filter (where verdict = 'observe') as observe
        from stock_daily where trade_date = ${date} and verdict in ('main', 'observe')`.execute(db)
      const row = rows[0]
      return row?.published ? { main: Number(row.main), observe: Number(row.observe) } : undefined
    },

    async oldestIncompleteSyncedDay() {
      const { rows } = await sql<{ d: string | null }>`
        select min(trade_date)::text as d from sync_incomplete_days`.execute(db)
      return rows[0]?.d ?? undefined
    },

    async chainSteps(since) {
      const { rows } = await sql<{
        step: string
        last_start: Date | null
        last_ok: Date | null
        ok_seconds: number | string | null
        last_failure: Date | null
      }>`
        with recent as (select log_id, status, step, finished_at from chain_runs where created_at >= ${since}),
        lines as (
          select l.log_id, l.line_no, l.step, l.logged_at, split_part(l.text, ' ', 1) as event
          from chain_run_lines l join recent r using (log_id)
          where split_part(l.text, ' ', 1) in ('start', 'ok')),
        starts as (select step, max(logged_at) as last_start from lines where event = 'start' group by step),
        oks as (
          select distinct on (ok.step) ok.step, ok.logged_at as last_ok,
            extract(epoch from ok.logged_at - (
              select max(s.logged_at) from lines s
              where s.log_id = ok.log_id and s.step = ok.step and s.event = 'start' and s.line_no < ok.line_no
            )) as ok_seconds
          from lines ok where ok.event = 'ok'
          order by ok.step, ok.logged_at desc, ok.line_no desc),
        failures as (
          select step, max(finished_at) as last_failure from (
            -- a run closed as an orphan (its executor died) has no step: the step it last started
            select coalesce(r.step, (
              select s.step from lines s where s.log_id = r.log_id and s.event = 'start' order by s.line_no desc limit 1
            )) as step, r.finished_at
            from recent r where r.status in ('failed', 'timeout', 'killed')) f
          where step is not null group by step)
        select step, starts.last_start, oks.last_ok, oks.ok_seconds, failures.last_failure
        from starts full join oks using (step) full join failures using (step)`.execute(db)
      return rows.map((r) => ({
        step: r.step,
        lastStartAt: r.last_start ?? undefined,
        lastSuccessAt: r.last_ok ?? undefined,
        lastSuccessSeconds: r.ok_seconds === null ? undefined : Number(r.ok_seconds),
        lastFailureAt: r.last_failure ?? undefined,
      }))
    },

    async outbox() {
      const row = await db
        .selectFrom('callback_outbox')
        .select((eb) => [eb.fn.countAll<string>().as('depth'), eb.fn.min('created_at').as('oldest')])
        .where('delivered_at', 'is', null)
        .executeTakeFirst()
      const oldest = row?.oldest as Date | string | null | undefined
      return {
        depth: Number(row?.depth ?? 0),
        oldestCreatedAt: oldest === null || oldest === undefined ? undefined : new Date(oldest),
      }
    },
  }
}
