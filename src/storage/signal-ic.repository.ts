import { sql } from 'kysely'
import { outcomeColumns, type SignalOutcomeColumns } from '../domain/signal-ic.js'
import type { SignalIcDay } from '../domain/signal-weights.js'
import type { SignalName, SignalValues } from '../domain/signals.js'
import type { Db } from './db.js'
import type { IsoDate } from './schema.js'

export interface DayOutcomes {
  readonly exitDate: IsoDate | null
  readonly columns: SignalOutcomeColumns
  /** The signal definitions the day's tier rows were scored with. */
  readonly definitions: string
}

export interface SignalIcRow {
  readonly signal: SignalName
  readonly ic: number
  readonly n: number
}

/** Each plan day's rank IC per signal (signal_ic), written after its outcomes and read by later builds. */
export function createSignalIcRepository(db: Db) {
  return {
    /**
     * Plan days with outcomes at `horizon` and signals in their tier rows, but no signal ICs yet: the build dates
     * (one row a build) probed in the outcomes' dates (one row a day, migration 0016) and the ICs by primary key.
     */
    async datesWithoutIc(horizon: number): Promise<IsoDate[]> {
      const { rows } = await sql<{ d: IsoDate }>`
        select b.trade_date::text as d from (select distinct trade_date from builds where weights is not null) b
        where exists (select from outcome_dates o where o.horizon = ${horizon} and o.trade_date = b.trade_date)
          and not exists (select from signal_ic i where i.horizon = ${horizon} and i.trade_date = b.trade_date)
        order by 1`.execute(db)
      return rows.map((r) => r.d)
    },

    /**
     * The day's tradable rows as columns (signals with the realised return), the day the window exited, and the
     * signal definitions of the build that wrote the rows ('' for a build from before they were recorded).
     */
    async dayOutcomes(date: IsoDate, horizon: number): Promise<DayOutcomes> {
      // each side read by its own key range and joined here: a join in SQL is planned from the statistics, which a
      // replay outruns (tables that grow by 5,000 rows a day look empty to the planner, and a nested loop over the
      // two day-sized sides took seconds a day)
      const [outcomes, tiers] = await Promise.all([
        sql<{ code: string; ret: number; exit_date: IsoDate }>`
          select code, ret, exit_date::text as exit_date from plan_outcomes
          where trade_date = ${date}::date and horizon = ${horizon} and tradable and ret is not null`.execute(db),
        sql<{ code: string; signals: SignalValues; build_id: string }>`
          select code, signals, build_id from tier_scores where trade_date = ${date}::date`.execute(db),
      ])
      const buildId = tiers.rows[0]?.build_id
      const build =
        buildId === undefined
          ? undefined
          : await db
              .selectFrom('builds')
              .select('signal_definitions')
              .where('build_id', '=', buildId)
              .executeTakeFirst()
      const signalsOf = new Map(tiers.rows.map((t) => [t.code, t.signals]))
      const joined = outcomes.rows.filter((o) => signalsOf.has(o.code))
      return {
        exitDate: joined[0]?.exit_date ?? null,
        definitions: build?.signal_definitions ?? '',
        columns: outcomeColumns(joined.map((o) => ({ signals: signalsOf.get(o.code)!, ret: o.ret }))),
      }
    },

    async insert(
      date: IsoDate,
      horizon: number,
      exitDate: IsoDate,
      definitions: string,
      ics: readonly SignalIcRow[],
    ): Promise<void> {
      if (ics.length === 0) return
      await db
        .insertInto('signal_ic')
        .values(
          ics.map((r) => ({
            trade_date: date,
            horizon,
            exit_date: exitDate,
            signal: r.signal,
            ic: r.ic,
            n: r.n,
            definitions,
          })),
        )
        .onConflict((oc) => oc.columns(['trade_date', 'horizon', 'signal']).doNothing())
        .execute()
    },

    /**
     * ICs at `horizon` measured on signals of `definitions`, of plan days whose exit is before `asOf` (the rule of
     * `learnWeights`), the newest `days` plan days.
     */
    async history(horizon: number, asOf: IsoDate, days: number, definitions: string): Promise<SignalIcDay[]> {
      const { rows } = await sql<{ d: IsoDate; exit: IsoDate; ic: Record<string, number> }>`
        select trade_date::text as d, max(exit_date)::text as exit, jsonb_object_agg(signal, ic) as ic
        from signal_ic
        where horizon = ${horizon} and exit_date < ${asOf}::date and definitions = ${definitions}
        group by trade_date order by trade_date desc limit ${days}`.execute(db)
      return rows.map((r) => ({ date: r.d, exitDate: r.exit, ic: r.ic }))
    },
  }
}

export type SignalIcRepository = ReturnType<typeof createSignalIcRepository>
