import { sql } from 'kysely'
import type { EvalDay, EvalRow } from '../domain/track-record.js'
import type { Db } from './db.js'
import type { IsoDate } from './schema.js'

interface OutcomeDay {
  d: IsoDate
  entry: IsoDate
  exit: IsoDate
  regime: string | null
  codes: string[]
  tradable: boolean[]
  reasons: Array<string | null>
  rets: Array<number | null>
}

interface TierDay {
  d: IsoDate
  codes: string[]
  scores: number[]
  themes: Array<string | null>
  [component: `c_${string}`]: Array<number | null>
}

interface DailyDay {
  d: IsoDate
  codes: string[]
  verdicts: string[]
  states: string[]
}

/**
 * What the evaluator reads, as three grouped scans (outcomes, tier rows, daily rows), one row per plan date with
 * the day's values as JSON arrays, joined by code here. 250 dates x 5,000 codes stay 250 rows a table; a SQL join
 * of the three ran as 2.5 million index lookups (18 s for 250 k rows), and pg's array parser is slow where
 * JSON.parse is native.
 */
export function createTrackRecordRepository(db: Db) {
  return {
    async days(options: {
      horizon: number
      from?: IsoDate
      to?: IsoDate
      components: readonly string[]
    }): Promise<Array<EvalDay & { entryDate: IsoDate }>> {
      const range = (column: string) => sql`
        ${options.from ? sql`and ${sql.ref(column)} >= ${options.from}::date` : sql``}
        ${options.to ? sql`and ${sql.ref(column)} <= ${options.to}::date` : sql``}`
      const componentColumns = options.components.map(
        (c) => sql`, json_agg(${sql.ref(c)} order by code) as ${sql.ref(`c_${c}`)}`,
      )
      const [outcomes, tiers, daily] = await Promise.all([
        sql<OutcomeDay>`
          select trade_date::text as d, min(entry_date)::text as entry, min(exit_date)::text as exit,
            min(regime) as regime, json_agg(code order by code) as codes, json_agg(tradable order by code) as tradable,
            json_agg(reason order by code) as reasons, json_agg(ret order by code) as rets
          from plan_outcomes where horizon = ${options.horizon} ${range('trade_date')}
          group by trade_date order by trade_date`.execute(db),
        sql<TierDay>`
          select trade_date::text as d, json_agg(code order by code) as codes, json_agg(score order by code) as scores,
            json_agg(theme order by code) as themes ${sql.join(componentColumns, sql``)}
          from tier_scores where true ${range('trade_date')}
          group by trade_date`.execute(db),
        sql<DailyDay>`
          select trade_date::text as d, json_agg(code order by code) as codes,
            json_agg(verdict order by code) as verdicts, json_agg(logic_state order by code) as states
          from stock_daily where true ${range('trade_date')}
          group by trade_date`.execute(db),
      ])
      const tierByDate = new Map(tiers.rows.map((r) => [r.d, r]))
      const dailyByDate = new Map(daily.rows.map((r) => [r.d, r]))
      return outcomes.rows.map((o) => {
        const tier = tierByDate.get(o.d)
        const tierAt = new Map(tier?.codes.map((c, i) => [c, i]) ?? [])
        const day = dailyByDate.get(o.d)
        const dailyAt = new Map(day?.codes.map((c, i) => [c, i]) ?? [])
        const rows: EvalRow[] = []
        o.codes.forEach((code, i) => {
          const t = tierAt.get(code)
          if (t === undefined || !tier) return // the tier row was rebuilt away: nothing to score it by
          const components: Record<string, number | null> = {}
          for (const c of options.components) components[c] = tier[`c_${c}`]![t] ?? null
          const k = dailyAt.get(code)
          rows.push({
            code,
            score: tier.scores[t]!,
            components,
            decision: k === undefined ? null : day!.verdicts[k]!,
            logicState: k === undefined ? null : day!.states[k]!,
            theme: tier.themes[t] ?? null,
            tradable: o.tradable[i]!,
            reason: o.reasons[i] ?? null,
            ret: o.rets[i] ?? null,
          })
        })
        return { date: o.d, entryDate: o.entry, exitDate: o.exit, regime: o.regime, benchRet: null, rows }
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
