import { sql } from 'kysely'
import type { EvalDay, EvalRow } from '../domain/track-record.js'
import type { Db } from './db.js'
import type { IsoDate } from './schema.js'

interface DayRow {
  d: IsoDate
  entry: IsoDate
  exit: IsoDate
  regime: string | null
  codes: string[]
  tradable: boolean[]
  reasons: Array<string | null>
  rets: Array<number | null>
  scores: number[]
  themes: Array<string | null>
  verdicts: Array<string | null>
  states: Array<string | null>
  [component: `c_${string}`]: Array<number | null>
}

/**
 * What the evaluator reads: one row per plan date with the day's codes as arrays (250 dates x 5,000 codes stay
 * 250 rows), the tier score and its components, the published decision and logic state, and the outcome.
 */
export function createTrackRecordRepository(db: Db) {
  return {
    async days(options: {
      horizon: number
      from?: IsoDate
      to?: IsoDate
      components: readonly string[]
    }): Promise<Array<EvalDay & { entryDate: IsoDate }>> {
      const componentColumns = options.components.map(
        (c) => sql`array_agg(t.${sql.ref(c)} order by o.code) as ${sql.ref(`c_${c}`)}`,
      )
      const result = await sql<DayRow>`
        select o.trade_date::text as d, min(o.entry_date)::text as entry, min(o.exit_date)::text as exit,
          min(o.regime) as regime,
          array_agg(o.code order by o.code) as codes,
          array_agg(o.tradable order by o.code) as tradable,
          array_agg(o.reason order by o.code) as reasons,
          array_agg(o.ret order by o.code) as rets,
          array_agg(t.score order by o.code) as scores,
          array_agg(t.theme order by o.code) as themes,
          array_agg(sd.verdict order by o.code) as verdicts,
          array_agg(sd.logic_state order by o.code) as states
          ${componentColumns.length ? sql`, ${sql.join(componentColumns)}` : sql``}
        from plan_outcomes o
        join tier_scores t on t.trade_date = o.trade_date and t.code = o.code
        left join stock_daily sd on sd.trade_date = o.trade_date and sd.code = o.code
        where o.horizon = ${options.horizon}
          ${options.from ? sql`and o.trade_date >= ${options.from}::date` : sql``}
          ${options.to ? sql`and o.trade_date <= ${options.to}::date` : sql``}
        group by o.trade_date
        order by o.trade_date`.execute(db)
      return result.rows.map((r) => {
        const rows: EvalRow[] = r.codes.map((code, i) => {
          const components: Record<string, number | null> = {}
          for (const c of options.components) components[c] = r[`c_${c}`]![i] ?? null
          return {
            code,
            score: r.scores[i]!,
            components,
            decision: r.verdicts[i] ?? null,
            logicState: r.states[i] ?? null,
            theme: r.themes[i] ?? null,
            tradable: r.tradable[i]!,
            reason: r.reasons[i] ?? null,
            ret: r.rets[i] ?? null,
          }
        })
        return { date: r.d, entryDate: r.entry, exitDate: r.exit, regime: r.regime, benchRet: null, rows }
      })
    },

    /** The index's bars (open, close) between two dates, for benchmark windows. */
    async indexBars(code: string, from: IsoDate, to: IsoDate): Promise<Map<IsoDate, { open: number; close: number }>> {
      const rows = await db
        .selectFrom('index_bars')
        .select(['trade_date', 'open', 'close'])
        .where('code', '=', code)
        .where('trade_date', '>=', from)
        .where('trade_date', '<=', to)
        .execute()
      return new Map(rows.map((r) => [r.trade_date, { open: r.open, close: r.close }]))
    },

    async hasIndex(code: string): Promise<boolean> {
      const row = await db.selectFrom('index_bars').select('code').where('code', '=', code).limit(1).executeTakeFirst()
      return row !== undefined
    },
  }
}

export type TrackRecordRepository = ReturnType<typeof createTrackRecordRepository>
