import { sql } from 'kysely'
import type { EvalDay, EvalRow } from '../domain/track-record.js'
import type { Db } from './db.js'
import { indexBarsBetween } from './index-bars.js'
import type { IsoDate } from './schema.js'

interface OutcomeDay {
  d: IsoDate
  entry: IsoDate
  exit: IsoDate
  regime: string | null
  codes: string[]
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
 * Plan dates per batch: the date range lets PostgreSQL bitmap-scan the batch's pages and sort its 50,000 rows by
 * code (a few MB). Over the whole record the ordered aggregates walked the (date, code) index row by row instead.
 */
const DATES_PER_BATCH = 10
/**
 * Batches read at once, one pooled connection each: their scans run in parallel backends (the machine's 2 cores)
 * while this process parses and joins another; the server's pool (10) keeps room for the plan.
 */
const BATCHES_IN_FLIGHT = 3
/** Every list of a day in byte order of the code, the order of `<` on these ASCII codes, whatever the collation. */
const byCode = sql.raw('order by code collate "C"')

/**
 * What the evaluator reads: per plan date the outcome rows joined to the tier row that scored them and the daily
 * row that published their decision. Each table is read as one row per date holding the day's values as JSON
 * arrays in code order (JSON.parse is native; pg's array parser and per-row decoding are not), and the three are
 * merged here in one pass. A SQL join of the three ran as index lookups per row (its estimates miss the
 * correlation of date and code): 1 s per 10 dates.
 */
export interface WeightsDay {
  readonly date: IsoDate
  readonly weights: Record<string, number>
}

export function createTrackRecordRepository(db: Db) {
  async function outcomeDates(horizon: number, from?: IsoDate, to?: IsoDate): Promise<IsoDate[]> {
    let query = db
      .selectFrom('plan_outcomes')
      .select('trade_date')
      .distinct()
      .where('horizon', '=', horizon)
      .orderBy('trade_date')
    if (from) query = query.where('trade_date', '>=', from)
    if (to) query = query.where('trade_date', '<=', to)
    return (await query.execute()).map((r) => r.trade_date)
  }

  async function batch(
    horizon: number,
    from: IsoDate,
    to: IsoDate,
    components: readonly string[],
  ): Promise<Array<EvalDay & { entryDate: IsoDate }>> {
    const componentColumns = components.map((c) => sql`, json_agg(${sql.ref(c)} ${byCode}) as ${sql.ref(`c_${c}`)}`)
    // one query at a time: a batch holds one pooled connection, so an evaluation takes BATCHES_IN_FLIGHT of them
    const outcomes = await sql<OutcomeDay>`
      select trade_date::text as d, min(entry_date)::text as entry, min(exit_date)::text as exit,
        min(regime) as regime, json_agg(code ${byCode}) as codes, json_agg(reason ${byCode}) as reasons,
        json_agg(ret ${byCode}) as rets
      from plan_outcomes where horizon = ${horizon} and trade_date between ${from}::date and ${to}::date
      group by trade_date order by trade_date`.execute(db)
    const tiers = await sql<TierDay>`
      select trade_date::text as d, json_agg(code ${byCode}) as codes, json_agg(score ${byCode}) as scores,
        json_agg(theme ${byCode}) as themes ${sql.join(componentColumns, sql``)}
      from tier_scores where trade_date between ${from}::date and ${to}::date
      group by trade_date`.execute(db)
    const daily = await sql<DailyDay>`
      select trade_date::text as d, json_agg(code ${byCode}) as codes,
        json_agg(verdict ${byCode}) as verdicts, json_agg(logic_state ${byCode}) as states
      from stock_daily where trade_date between ${from}::date and ${to}::date
      group by trade_date`.execute(db)
    const tierByDate = new Map(tiers.rows.map((r) => [r.d, r]))
    const dailyByDate = new Map(daily.rows.map((r) => [r.d, r]))
    return outcomes.rows.map((o) => joinDay(o, tierByDate.get(o.d), dailyByDate.get(o.d), components))
  }

  return {
    /** Each plan day's signal ICs at `horizon` (signal_ic), by date. */
    async signalIcs(horizon: number, from?: IsoDate, to?: IsoDate): Promise<Map<IsoDate, Record<string, number>>> {
      let q = db.selectFrom('signal_ic').select(['trade_date', 'signal', 'ic']).where('horizon', '=', horizon)
      if (from) q = q.where('trade_date', '>=', from)
      if (to) q = q.where('trade_date', '<=', to)
      const out = new Map<IsoDate, Record<string, number>>()
      for (const r of await q.execute()) {
        const day = out.get(r.trade_date) ?? {}
        day[r.signal] = r.ic
        out.set(r.trade_date, day)
      }
      return out
    },

    /** The walk-forward weights each build used, by build date (the latest build of a date). */
    async weights(from?: IsoDate, to?: IsoDate): Promise<WeightsDay[]> {
      let q = db
        .selectFrom('builds')
        .select(['trade_date', 'weights'])
        .distinctOn('trade_date')
        .where('weights', 'is not', null)
      if (from) q = q.where('trade_date', '>=', from)
      if (to) q = q.where('trade_date', '<=', to)
      const rows = await q.orderBy('trade_date').orderBy('finished_at', 'desc').execute()
      return rows.map((r) => ({
        date: r.trade_date,
        weights: Object.fromEntries(Object.entries(r.weights ?? {}).map(([name, w]) => [name, w.weight])),
      }))
    },
    async days(options: {
      horizon: number
      from?: IsoDate
      to?: IsoDate
      components: readonly string[]
    }): Promise<Array<EvalDay & { entryDate: IsoDate }>> {
      const dates = await outcomeDates(options.horizon, options.from, options.to)
      const ranges: Array<[IsoDate, IsoDate]> = []
      for (let i = 0; i < dates.length; i += DATES_PER_BATCH)
        ranges.push([dates[i]!, dates[Math.min(i + DATES_PER_BATCH, dates.length) - 1]!])
      const results: Array<Array<EvalDay & { entryDate: IsoDate }>> = new Array(ranges.length)
      let next = 0
      const worker = async () => {
        while (next < ranges.length) {
          const i = next++
          results[i] = await batch(options.horizon, ranges[i]![0], ranges[i]![1], options.components)
        }
      }
      await Promise.all(Array.from({ length: Math.min(BATCHES_IN_FLIGHT, ranges.length) }, worker))
      return results.flat()
    },

    /** The index's bars (open, close) between two dates, for benchmark windows. */
    async indexBars(code: string, from: IsoDate, to: IsoDate): Promise<Map<IsoDate, { open: number; close: number }>> {
      const rows = await indexBarsBetween(db, code, from, to)
      return new Map(rows.map((r) => [r.trade_date, { open: r.open, close: r.close }]))
    },

    async hasIndex(code: string): Promise<boolean> {
      const row = await db.selectFrom('index_bars').select('code').where('code', '=', code).limit(1).executeTakeFirst()
      return row !== undefined
    },
  }
}

/**
 * One plan date's outcome rows with their tier and daily fields. All three lists are in code order (the queries
 * sort them by byte order, `collate "C"`, which is the order of `<` on strings of ASCII), so one merge pass joins
 * them.
 */
function joinDay(
  o: OutcomeDay,
  tier: TierDay | undefined,
  day: DailyDay | undefined,
  components: readonly string[],
): EvalDay & { entryDate: IsoDate } {
  const rows: EvalRow[] = []
  const tierCodes = tier?.codes ?? []
  const dailyCodes = day?.codes ?? []
  const componentValues = components.map((c) => tier?.[`c_${c}`] ?? [])
  let t = 0
  let k = 0
  for (let i = 0; i < o.codes.length; i++) {
    const code = o.codes[i]!
    while (t < tierCodes.length && tierCodes[t]! < code) t++
    if (t === tierCodes.length || tierCodes[t] !== code) continue // the tier row was rebuilt away: nothing to score it by
    while (k < dailyCodes.length && dailyCodes[k]! < code) k++
    const published = k < dailyCodes.length && dailyCodes[k] === code
    const values: Record<string, number | null> = {}
    for (let c = 0; c < components.length; c++) values[components[c]!] = componentValues[c]![t] ?? null
    const reason = o.reasons[i] ?? null
    rows.push({
      code,
      score: tier!.scores[t]!,
      components: values,
      decision: published ? day!.verdicts[k]! : null,
      logicState: published ? day!.states[k]! : null,
      theme: tier!.themes[t] ?? null,
      tradable: reason === null, // the table's check: tradable = (reason is null)
      reason,
      ret: o.rets[i] ?? null,
    })
  }
  return { date: o.d, entryDate: o.entry, exitDate: o.exit, regime: o.regime, benchRet: null, rows }
}

export type TrackRecordRepository = ReturnType<typeof createTrackRecordRepository>
