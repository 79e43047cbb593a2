import { sql } from 'kysely'
import type { DayStats } from '../domain/track-record-day.js'
import type { Db } from './db.js'
import type { IsoDate } from './schema.js'

/** A plan day's stored statistics, with the entry date its benchmark window starts on. */
export interface StoredDayStats {
  readonly entryDate: IsoDate
  readonly benchmark: string
  readonly stats: DayStats
}

/** Each plan day's track-record statistics per horizon (plan_day_stats, migration 0015). */
export function createPlanDayStatsRepository(db: Db) {
  return {
    /** The plan dates with outcomes at `horizon`, ascending (their set kept by triggers, migration 0016). */
    async outcomeDates(horizon: number, from?: IsoDate, to?: IsoDate): Promise<IsoDate[]> {
      let q = db.selectFrom('outcome_dates').select('trade_date').where('horizon', '=', horizon)
      if (from) q = q.where('trade_date', '>=', from)
      if (to) q = q.where('trade_date', '<=', to)
      const rows = await q.orderBy('trade_date').execute()
      return rows.map((r) => r.trade_date)
    },

    /** The stored statistics at `horizon` between the dates, by plan date. */
    async read(horizon: number, from?: IsoDate, to?: IsoDate): Promise<Map<IsoDate, StoredDayStats>> {
      let q = db
        .selectFrom('plan_day_stats')
        .select(['trade_date', 'entry_date', 'benchmark', 'stats'])
        .where('horizon', '=', horizon)
      if (from) q = q.where('trade_date', '>=', from)
      if (to) q = q.where('trade_date', '<=', to)
      const rows = await q.execute()
      return new Map(
        rows.map((r) => [r.trade_date, { entryDate: r.entry_date, benchmark: r.benchmark, stats: r.stats }]),
      )
    },

    /** Plan dates at `horizon` that have stored statistics. */
    async storedDates(horizon: number): Promise<Set<IsoDate>> {
      const rows = await db.selectFrom('plan_day_stats').select('trade_date').where('horizon', '=', horizon).execute()
      return new Set(rows.map((r) => r.trade_date))
    },

    /** Writes (or replaces) the statistics of plan days at `horizon`. */
    async write(horizon: number, days: readonly StoredDayStats[]): Promise<void> {
      if (days.length === 0) return
      await db
        .insertInto('plan_day_stats')
        .values(
          days.map((d) => ({
            horizon,
            trade_date: d.stats.date,
            entry_date: d.entryDate,
            benchmark: d.benchmark,
            stats: JSON.stringify(d.stats),
          })),
        )
        .onConflict((oc) =>
          oc.columns(['horizon', 'trade_date']).doUpdateSet((eb) => ({
            entry_date: eb.ref('excluded.entry_date'),
            benchmark: eb.ref('excluded.benchmark'),
            stats: eb.ref('excluded.stats'),
            computed_at: sql<Date>`now()`,
          })),
        )
        .execute()
    },
  }
}

export type PlanDayStatsRepository = ReturnType<typeof createPlanDayStatsRepository>
