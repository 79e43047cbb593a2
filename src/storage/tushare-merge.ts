/**
 * The second half of a tushare bundle import: the bundle's files sit in staging tables (one per file, with the
 * file line of each row) inside the import's transaction, and these statements move them into the store.
 *
 * Conventions the statements carry:
 * - A bar needs its adjustment factor: a daily.csv row without an adj_factor.csv row refuses the bundle.
 * - fina_indicator: `roe` is stored annualised: tushare's `roe_yearly` (年化净资产收益率) when the file has it,
 *   else the year-to-date `roe` x 12 / months of the period (Q1 x4, H1 x2, Q3 x4/3, annual x1). `eps` (basic,
 *   year-to-date) is annualised the same way. `ocf_to_np` is operating cash flow over net profit, taken as
 *   `ocfps / eps` (both year-to-date per share); tushare's `ocf_to_profit` divides by operating profit and
 *   is not used. Every announcement is a version (code, end_date, ann_date); for one announcement the
 *   update_flag 1 row (the corrected figures) wins.
 * - Suspensions (suspend_d, type S, whole day) become bars at the previous close with no volume, flagged
 *   is_suspended, so the code keeps its place in the tier table.
 * - is_st comes from st_periods (namechange names with ST, stock_st days) for every bar the bundle touches.
 * - Concept boards: ths_index rows become concept_boards; each ths_member row a theme_edges row with the board's
 *   name as theme, segment CONCEPT_SEGMENT, weight 1 (tushare's `weight` is not filled), valid from `in_date`
 *   (none: the day the answer was taken on, or the start of the open edge already stored) through `out_date`
 *   (none: still a member); an open edge of a board the file answers whose member is no longer in it is closed the
 *   day before. A member tushare marks gone (`is_new` N) without an `out_date` has no dates to place it in time and
 *   is skipped, as is a member of a board no ths_index names.
 *   ths_daily rows become concept_bars.
 */
import type pg from 'pg'
import { dropBarIndexes } from './bars-by-copy.js'
import type { TushareStage } from './csv-formats.js'
import { ImportError } from './import-error.js'

/** What the merge needs to know of one staged file: its table and which columns the header held. */
export interface StagedFile {
  readonly name: string
  readonly columns: ReadonlySet<string>
  /** Rows COPY put in it. */
  readonly rows: number
}

export type Staged = ReadonlyMap<TushareStage, StagedFile>

export interface MergeCounts {
  readonly inserted: number
  readonly updated: number
  /** Staged rows left out on purpose (fina_indicator rows superseded within one announcement). */
  readonly skipped?: number
  /** Why they were left out, as a person reads it. */
  readonly skippedWhy?: string
  /** Rows written onto another file's rows in the same statement (adj_factor onto daily.csv's bars). */
  readonly attached?: number
}

const ident = (name: string): string => `"${name.replaceAll('"', '""')}"`
const NONE: MergeCounts = { inserted: 0, updated: 0 }
const ST_NAME = `'^S?\\*?ST'`

/** The staged column, qualified by `alias` when given, or a typed NULL when the file's header lacks it. */
function column(file: StagedFile, name: string, type = 'double precision', alias?: string): string {
  if (!file.columns.has(name)) return `null::${type}`
  return alias === undefined ? ident(name) : `${alias}.${ident(name)}`
}

async function counted(client: pg.PoolClient, insert: string, params: unknown[] = []): Promise<MergeCounts> {
  const { rows } = await client.query<{ inserted: number; updated: number }>(
    `with changed as (${insert} returning (xmax = 0) as inserted)
     select (count(*) filter (where inserted))::int as inserted,
            (count(*) filter (where not inserted))::int as updated from changed`,
    params,
  )
  return rows[0] ?? NONE
}

async function rowCount(client: pg.PoolClient, text: string): Promise<number> {
  return (await client.query(text)).rowCount ?? 0
}

/**
 * Refuses a file that repeats a key: the later line names the earlier one. A hash aggregate answers "any
 * repeat?" in one pass; only a file that has one pays for the window query that finds its lines.
 */
async function refuseRepeats(client: pg.PoolClient, file: string, staged: StagedFile, keys: string[]): Promise<void> {
  const list = keys.map(ident).join(', ')
  const any = await client.query(`select 1 from ${ident(staged.name)} group by ${list} having count(*) > 1 limit 1`)
  if (any.rowCount === 0) return
  const { rows } = await client.query<{ line: number; first: number; k: string }>(
    `select line, first, concat_ws(', ', ${keys.map((k) => `${ident(k)}::text`).join(', ')}) as k
     from (select line, ${list}, min(line) over w as first, row_number() over (w order by line) as n
           from ${ident(staged.name)} window w as (partition by ${list})) repeated
     where n = 2 order by line limit 1`,
  )
  const row = rows[0]
  if (row) throw new ImportError(file, row.line, `repeats (${keys.join(', ')}) = (${row.k}) of line ${row.first}`)
}

export async function mergeTradeCalendar(client: pg.PoolClient, s: StagedFile): Promise<MergeCounts> {
  return counted(
    client,
    `insert into trading_calendar (cal_date, is_open)
     select cal_date, bool_or(is_open) from ${ident(s.name)} group by cal_date
     on conflict (cal_date) do update set is_open = excluded.is_open
       where trading_calendar.is_open is distinct from excluded.is_open`,
  )
}

/** namechange: every name with ST is a period; an open period ends the day before the code's next name. */
export async function mergeNameChanges(client: pg.PoolClient, s: StagedFile): Promise<MergeCounts> {
  const table = ident(s.name)
  const counts = await counted(
    client,
    `insert into st_periods (code, start_date, end_date, name)
     select distinct on (code, start_date) code, start_date, end_date, name from ${table}
     where name ~ ${ST_NAME} order by code, start_date, line desc
     on conflict (code, start_date) do update set end_date = excluded.end_date, name = excluded.name
       where (st_periods.end_date, st_periods.name) is distinct from (excluded.end_date, excluded.name)`,
  )
  await client.query(
    `update st_periods p set end_date = later.next_start - 1
     from (select p2.code, p2.start_date, min(n.start_date) as next_start from st_periods p2
           join ${table} n on n.code = p2.code and n.start_date > p2.start_date and n.name !~ ${ST_NAME}
           where p2.end_date is null group by p2.code, p2.start_date) later
     where p.code = later.code and p.start_date = later.start_date and p.end_date is null`,
  )
  const other = await client.query<{ n: number }>(`select count(*)::int as n from ${table} where name !~ ${ST_NAME}`)
  return { ...counts, skipped: other.rows[0]?.n ?? 0, skippedWhy: 'names without ST' }
}

export async function mergeStockSt(client: pg.PoolClient, s: StagedFile): Promise<MergeCounts> {
  return counted(
    client,
    `insert into st_periods (code, start_date, end_date, name)
     select distinct on (code, trade_date) code, trade_date, trade_date, coalesce(${column(s, 'name', 'text')}, '')
     from ${ident(s.name)} order by code, trade_date, line desc
     on conflict (code, start_date) do update set end_date =
       case when st_periods.end_date is null then null else greatest(st_periods.end_date, excluded.end_date) end
       where st_periods.end_date is not null and st_periods.end_date < excluded.end_date`,
  )
}

/** is_st of bar `b` from st_periods. */
const ST_FLAG = `exists (select from st_periods p where p.code = b.code and b.trade_date >= p.start_date
  and (p.end_date is null or b.trade_date <= p.end_date))`

/**
 * Rows of staged `file` whose (code, trade_date) the bundle's daily.csv does not hold: what is left for an
 * UPDATE of stored bars once the day's bars were written with everything in one INSERT.
 */
function notInDaily(file: StagedFile, daily: StagedFile | undefined): string {
  if (!daily) return ident(file.name)
  return `(select * from ${ident(file.name)} x where not exists
    (select from ${ident(daily.name)} d where d.code = x.code and d.trade_date = x.trade_date))`
}

/**
 * daily joined with adj_factor into daily_bars, with the day's turnover (daily_basic), limit prices
 * (stk_limit) and ST flag in the same INSERT: one write per bar. Refuses bars without a factor.
 */
export async function mergeDaily(client: pg.PoolClient, staged: Staged): Promise<MergeCounts> {
  const daily = staged.get('daily')!
  const adj = staged.get('adj_factor')
  const basic = staged.get('daily_basic')
  const limit = staged.get('stk_limit')
  const bars = adj ? freshBars(daily, adj, basic, limit) : undefined
  const empty = bars !== undefined && (await barsEmpty(client))
  if (bars && empty && adj!.rows === daily.rows) {
    // as many factors as bars: the INSERT's count and the rebuilt primary key show that no bar or factor
    // repeats and that every bar has its factor; any doubt and it is rolled back, and checked as below
    const inserted = await insertIntoEmptyBars(client, bars.insert, daily.rows)
    if (inserted !== undefined) {
      if (basic) await refuseRepeats(client, 'daily_basic.csv', basic, ['code', 'trade_date'])
      if (limit) await refuseRepeats(client, 'stk_limit.csv', limit, ['code', 'trade_date'])
      return { inserted, updated: 0 }
    }
  }
  await refuseRepeats(client, 'daily.csv', daily, ['code', 'trade_date'])
  if (adj) await refuseRepeats(client, 'adj_factor.csv', adj, ['code', 'trade_date'])
  const missing = adj
    ? await client.query<{ line: number; code: string; d: string }>(
        `select d.line, d.code, d.trade_date::text as d from ${ident(daily.name)} d
         where not exists (select from ${ident(adj.name)} a where a.code = d.code and a.trade_date = d.trade_date)
         order by d.line limit 1`,
      )
    : await client.query<{ line: number; code: string; d: string }>(
        `select line, code, trade_date::text as d from ${ident(daily.name)} order by line limit 1`,
      )
  const row = missing.rows[0]
  if (row) {
    const why = adj ? 'adj_factor.csv has no row for it' : 'the bundle has no adj_factor.csv'
    throw new ImportError(
      'daily.csv',
      row.line,
      `bar of ${row.code} on ${row.d} has no adjustment factor (${why}); add tushare adj_factor for the same days`,
    )
  }
  if (!bars) return NONE
  if (basic) await refuseRepeats(client, 'daily_basic.csv', basic, ['code', 'trade_date'])
  if (limit) await refuseRepeats(client, 'stk_limit.csv', limit, ['code', 'trade_date'])
  if (empty) {
    const inserted = await insertIntoEmptyBars(client, bars.insert)
    if (inserted !== undefined) return { inserted, updated: 0 }
  }
  return writeBars(client, daily, bars.fresh, bars.values, bars.kept)
}

const barsEmpty = async (client: pg.PoolClient): Promise<boolean> =>
  (await client.query<{ empty: boolean }>('select not exists (select from daily_bars) as empty')).rows[0]?.empty ??
  false

/** The bundle's bars as daily_bars rows: each daily.csv row with its factor, turnover, limit prices and ST flag. */
function freshBars(daily: StagedFile, adj: StagedFile, basic?: StagedFile, limit?: StagedFile) {
  const turnover = basic ? column(basic, 'turnover_rate', undefined, 't') : 'null::double precision'
  const up = limit ? column(limit, 'up_limit', undefined, 'l') : 'null::double precision'
  const down = limit ? column(limit, 'down_limit', undefined, 'l') : 'null::double precision'
  const joins = [
    basic ? `left join ${ident(basic.name)} t on t.code = d.code and t.trade_date = d.trade_date` : '',
    limit ? `left join ${ident(limit.name)} l on l.code = d.code and l.trade_date = d.trade_date` : '',
  ].join('\n')
  const values = [
    'open',
    'high',
    'low',
    'close',
    'pre_close',
    'volume',
    'amount',
    'adj_factor',
    'is_suspended',
    'is_st',
    'turnover_rate',
    'up_limit',
    'down_limit',
  ]
  // a bundle without daily_basic / stk_limit leaves the stored turnover and limit prices as they were
  const kept = new Set(['turnover_rate', 'up_limit', 'down_limit'])
  // ST periods looked up only when there are any (a first load has none before namechange)
  const fresh = `select d.code, d.trade_date, d.open, d.high, d.low, d.close, ${column(daily, 'pre_close', undefined, 'd')}
       as pre_close, d.volume, d.amount, a.adj_factor, false as is_suspended,
       case when (select exists (select from st_periods)) then
         exists (select from st_periods p where p.code = d.code and d.trade_date >= p.start_date
                 and (p.end_date is null or d.trade_date <= p.end_date)) else false end as is_st,
       ${turnover} as turnover_rate, ${up} as up_limit, ${down} as down_limit
     from ${ident(daily.name)} d join ${ident(adj.name)} a on a.code = d.code and a.trade_date = d.trade_date
     ${joins}`
  const list = `code, trade_date, ${values.join(', ')}`
  const insert = `insert into daily_bars (${list}) select ${list} from (${fresh}) f order by code, trade_date`
  return { fresh, values, kept, insert }
}

/**
 * The bundle's bars (`fresh`, one row per key) into daily_bars by set-based statements. When the store holds
 * no bar in the bundle's date range (a first load), one plain INSERT in key order (no speculative insertion:
 * half the time of ON CONFLICT). Otherwise one hash join sorts the bundle's bars into new and changed ones
 * (unchanged bars are never written), then an INSERT of the new and an upsert of the changed. Should another
 * session insert one of the keys meanwhile, the unique violation sends the bars through the second way.
 */
async function writeBars(
  client: pg.PoolClient,
  daily: StagedFile,
  fresh: string,
  values: readonly string[],
  kept: ReadonlySet<string>,
): Promise<MergeCounts> {
  const list = `code, trade_date, ${values.join(', ')}`
  const { rows } = await client.query<{ stored: boolean }>(
    `select exists (select from daily_bars where trade_date between
       (select min(trade_date) from ${ident(daily.name)}) and (select max(trade_date) from ${ident(daily.name)})) as stored`,
  )
  if (!rows[0]?.stored) {
    await client.query('savepoint merge_new_bars')
    try {
      const result = await client.query(
        `insert into daily_bars (${list}) select ${list} from (${fresh}) f order by code, trade_date`,
      )
      await client.query('release savepoint merge_new_bars')
      return { inserted: result.rowCount ?? 0, updated: 0 }
    } catch (err) {
      if ((err as { code?: string }).code !== '23505') throw err
      await client.query('rollback to savepoint merge_new_bars')
    }
  }
  const next = (row: string) => values.map((c) => (kept.has(c) ? `coalesce(${row}.${c}, b.${c})` : `${row}.${c}`))
  await client.query('drop table if exists merge_bars')
  await client.query(
    `create temp table merge_bars on commit drop as
     select f.*, b.code is not null as stored from (${fresh}) f
     left join daily_bars b on b.code = f.code and b.trade_date = f.trade_date
     where b.code is null or (${values.map((c) => `b.${c}`).join(', ')}) is distinct from (${next('f').join(', ')})`,
  )
  let inserted = 0
  await client.query('savepoint merge_new_bars')
  try {
    const result = await client.query(
      `insert into daily_bars (${list}) select ${list} from merge_bars where not stored order by code, trade_date`,
    )
    inserted = result.rowCount ?? 0
    await client.query('release savepoint merge_new_bars')
  } catch (err) {
    if ((err as { code?: string }).code !== '23505') throw err
    await client.query('rollback to savepoint merge_new_bars')
    await client.query('update merge_bars set stored = true')
  }
  const set = values.map((c, i) => `${c} = ${next('excluded')[i]}`)
  const upserted = await counted(
    client,
    `insert into daily_bars as b (${list}) select ${list} from merge_bars where stored
     on conflict (code, trade_date) do update set ${set.join(', ')}
     where (${values.map((c) => `b.${c}`).join(', ')}) is distinct from (${next('excluded').join(', ')})`,
  )
  // merge_bars (the bars written) stays until commit: stk_limit counts its rows attached to them
  return { inserted: inserted + upserted.inserted, updated: upserted.updated }
}

/**
 * A first load: into an empty daily_bars the bars go in without its indexes, which are built once the INSERT is
 * done (a sort and one pass instead of millions of index insertions: about half the time). The table is locked
 * meanwhile, readers included, until the import commits. A repeated key fails the rebuilt primary key, which
 * rolls all of it back: undefined then, as when the table is not empty, and the caller inserts as usual.
 */
async function insertIntoEmptyBars(
  client: pg.PoolClient,
  insert: string,
  /** Rows the INSERT must write, else it is rolled back. */
  expected?: number,
): Promise<number | undefined> {
  await client.query('savepoint first_load')
  try {
    await client.query('lock table daily_bars in access exclusive mode')
    const { rows } = await client.query<{ empty: boolean; referenced: boolean }>(
      `select not exists (select from daily_bars) as empty,
              exists (select from pg_constraint where confrelid = 'daily_bars'::regclass) as referenced`,
    )
    if (!rows[0]?.empty || rows[0].referenced) {
      await client.query('rollback to savepoint first_load')
      return undefined
    }
    const rebuild = await dropBarIndexes(client)
    const result = await client.query(insert)
    if (expected !== undefined && result.rowCount !== expected) {
      await client.query('rollback to savepoint first_load')
      return undefined
    }
    for (const create of rebuild) await client.query(create)
    await client.query('release savepoint first_load')
    return result.rowCount ?? 0
  } catch (err) {
    if ((err as { code?: string }).code !== '23505') throw err
    await client.query('rollback to savepoint first_load')
    return undefined
  }
}

/** Factors for stored bars the bundle's daily.csv does not repeat (tushare revises history factors). */
export async function mergeAdjFactors(client: pg.PoolClient, staged: Staged, written: number): Promise<MergeCounts> {
  const adj = staged.get('adj_factor')!
  const daily = staged.get('daily')
  // every bar mergeDaily wrote took its factor from adj_factor.csv; the factors of its unchanged bars are unchanged
  const attached = written
  // mergeDaily refused repeats and bars without a factor: as many factors as bars means none is left over
  if (daily && daily.rows === adj.rows) return { inserted: 0, updated: 0, attached }
  const others = notInDaily(adj, daily)
  const updated = await rowCount(
    client,
    `update daily_bars b set adj_factor = a.adj_factor from ${others} a
     where b.code = a.code and b.trade_date = a.trade_date and b.adj_factor is distinct from a.adj_factor`,
  )
  // factors of the bundle's suspended days are taken by mergeSuspensions: not left out
  const suspended = staged.get('suspend_d')
  const { rows } = await client.query<{ n: number }>(
    `select count(*)::int as n from ${others} a
     where not exists (select from daily_bars b where b.code = a.code and b.trade_date = a.trade_date)
     ${suspended ? `and not exists (select from ${ident(suspended.name)} s where s.code = a.code and s.trade_date = a.trade_date)` : ''}`,
  )
  const skipped = rows[0]?.n ?? 0
  return { inserted: 0, updated, attached, skipped, skippedWhy: 'no bar of that code and day' }
}

/**
 * Whole-day suspensions as bars at the previous close (volume and amount 0). Days after the last stored bar
 * date (suspend_d also lists announced future days) and closed calendar days are left out.
 */
export async function mergeSuspensions(client: pg.PoolClient, staged: Staged): Promise<MergeCounts> {
  const s = staged.get('suspend_d')!
  const adj = staged.get('adj_factor')
  const factor = adj
    ? `coalesce((select a.adj_factor from ${ident(adj.name)} a where a.code = s.code and a.trade_date = s.trade_date),
        p.adj_factor)`
    : 'p.adj_factor'
  const timing = column(s, 'suspend_timing', 'text')
  const counts = await counted(
    client,
    `insert into daily_bars (code, trade_date, open, high, low, close, pre_close, volume, amount, adj_factor,
       is_suspended, is_st)
     select s.code, s.trade_date, p.close, p.close, p.close, p.close, p.close, 0, 0, ${factor}, true,
       exists (select from st_periods st where st.code = s.code and s.trade_date >= st.start_date
               and (st.end_date is null or s.trade_date <= st.end_date))
     from (select distinct code, trade_date from ${ident(s.name)}
           where suspend_type = 'S' and coalesce(${timing}, '') = '') s
     cross join lateral (select b.close, b.adj_factor from daily_bars b
                         where b.code = s.code and b.trade_date < s.trade_date
                         order by b.trade_date desc limit 1) p
     where s.trade_date <= (select max(trade_date) from daily_bars)
       and not exists (select from trading_calendar c where c.cal_date = s.trade_date and not c.is_open)
     on conflict (code, trade_date) do nothing`,
  )
  return {
    ...counts,
    skipped: s.rows - counts.inserted,
    skippedWhy: 'intraday halts, days after the last bar or closed, or a bar already stored',
  }
}

/**
 * is_st from st_periods for stored bars the day's INSERTs did not write: the bars stock_st names and every
 * bar of the codes namechange brought (their periods may reach back).
 */
export async function refreshStFlags(client: pg.PoolClient, staged: Staged): Promise<number> {
  const scopes: string[] = []
  const stDays = staged.get('stock_st')
  if (stDays) scopes.push(`(b.code, b.trade_date) in (select code, trade_date from ${ident(stDays.name)})`)
  const names = staged.get('namechange')
  if (names) scopes.push(`b.code in (select distinct code from ${ident(names.name)})`)
  let changed = 0
  for (const scope of scopes) {
    changed += await rowCount(
      client,
      `update daily_bars b set is_st = ${ST_FLAG} where ${scope} and b.is_st is distinct from ${ST_FLAG}`,
    )
  }
  return changed
}

/** daily_basic into daily_basics; its turnover onto stored bars the bundle's daily.csv does not hold. */
export async function mergeDailyBasic(client: pg.PoolClient, staged: Staged): Promise<MergeCounts> {
  const s = staged.get('daily_basic')!
  await refuseRepeats(client, 'daily_basic.csv', s, ['code', 'trade_date'])
  const cols = ['pe_ttm', 'pb', 'total_mv', 'circ_mv'].filter((c) => s.columns.has(c))
  const list = ['code', 'trade_date', ...cols].map(ident).join(', ')
  const update =
    cols.length === 0
      ? 'do nothing'
      : `do update set ${cols.map((c) => `${ident(c)} = excluded.${ident(c)}`).join(', ')}
         where (${cols.map((c) => `daily_basics.${ident(c)}`).join(', ')}, null)
           is distinct from (${cols.map((c) => `excluded.${ident(c)}`).join(', ')}, null)`
  const counts = await counted(
    client,
    `insert into daily_basics (${list}) select ${list} from ${ident(s.name)}
     on conflict (code, trade_date) ${update}`,
  )
  if (s.columns.has('turnover_rate')) {
    await client.query(
      `update daily_bars b set turnover_rate = s.turnover_rate from ${notInDaily(s, staged.get('daily'))} s
       where b.code = s.code and b.trade_date = s.trade_date and b.turnover_rate is distinct from s.turnover_rate`,
    )
  }
  return counts
}

export async function mergeFinaIndicator(client: pg.PoolClient, s: StagedFile): Promise<MergeCounts> {
  const months = 'extract(month from end_date)::double precision'
  const eps = column(s, 'eps')
  const values = `eps, bvps, roe, gross_margin, ocf_to_np, debt_to_assets, revenue_yoy, np_yoy`
  const { rows } = await client.query<{ n: number }>(
    `select (count(*) - count(distinct (code, end_date, ann_date)))::int as n from ${ident(s.name)}`,
  )
  const counts = await counted(
    client,
    `insert into financials (code, end_date, ann_date, ${values})
     select distinct on (code, end_date, ann_date) code, end_date, ann_date,
       ${eps} * 12 / ${months},
       ${column(s, 'bvps')},
       coalesce(${column(s, 'roe_yearly')}, ${column(s, 'roe')} * 12 / ${months}),
       ${column(s, 'gross_margin')},
       case when ${eps} > 0 then ${column(s, 'ocfps')} / ${eps} end,
       ${column(s, 'debt_to_assets')}, ${column(s, 'revenue_yoy')}, ${column(s, 'np_yoy')}
     from ${ident(s.name)}
     order by code, end_date, ann_date, coalesce(${column(s, 'update_flag', 'integer')}, 1) desc, line desc
     on conflict (code, end_date, ann_date) do update set
       ${values
         .split(', ')
         .map((c) => `${c} = excluded.${c}`)
         .join(', ')}
     where (${values
       .split(', ')
       .map((c) => `financials.${c}`)
       .join(', ')}) is distinct from (${values
       .split(', ')
       .map((c) => `excluded.${c}`)
       .join(', ')})`,
  )
  return { ...counts, skipped: rows[0]?.n ?? 0, skippedWhy: 'corrections superseded within one announcement' }
}

/** Limit prices onto stored bars the bundle's daily.csv does not hold (mergeDaily wrote the others). */
export async function mergeStkLimit(client: pg.PoolClient, staged: Staged): Promise<MergeCounts> {
  const s = staged.get('stk_limit')!
  await refuseRepeats(client, 'stk_limit.csv', s, ['code', 'trade_date'])
  const daily = staged.get('daily')
  // limits written with daily.csv's bars: into every bar of a first load, else into the new and changed ones
  const { rows: kept } = await client.query<{ merged: string | null }>(
    `select to_regclass('pg_temp.merge_bars')::text as merged`,
  )
  const written = kept[0]?.merged ? 'merge_bars' : daily ? ident(daily.name) : null
  const attached = written
    ? ((
        await client.query<{ n: number }>(
          `select count(*)::int as n from ${ident(s.name)} x
           where exists (select from ${written} d where d.code = x.code and d.trade_date = x.trade_date)`,
        )
      ).rows[0]?.n ?? 0)
    : 0
  const inDaily = daily
    ? ((
        await client.query<{ n: number }>(
          `select count(*)::int as n from ${ident(s.name)} x
           where exists (select from ${ident(daily.name)} d where d.code = x.code and d.trade_date = x.trade_date)`,
        )
      ).rows[0]?.n ?? 0)
    : 0
  if (inDaily === s.rows) return { inserted: 0, updated: 0, attached }
  const updated = await rowCount(
    client,
    `update daily_bars b set up_limit = ${column(s, 'up_limit', undefined, 's')},
       down_limit = ${column(s, 'down_limit', undefined, 's')}
     from ${notInDaily(s, daily)} s
     where b.code = s.code and b.trade_date = s.trade_date and (b.up_limit, b.down_limit)
       is distinct from (${column(s, 'up_limit', undefined, 's')}, ${column(s, 'down_limit', undefined, 's')})`,
  )
  return { inserted: 0, updated, attached }
}

/** The segment and evidence of a concept board member's theme edge. */
export const CONCEPT_SEGMENT = 'THS concept'
export const CONCEPT_EVIDENCE = 'THS concept member'

export async function mergeThsIndex(client: pg.PoolClient, s: StagedFile): Promise<MergeCounts> {
  return counted(
    client,
    `insert into concept_boards (code, name, type)
     select distinct on (ts_code) ts_code, name, coalesce(${column(s, 'type', 'text')}, '') from ${ident(s.name)}
     order by ts_code, line desc
     on conflict (code) do update set name = excluded.name, type = excluded.type
       where (concept_boards.name, concept_boards.type) is distinct from (excluded.name, excluded.type)`,
  )
}

/**
 * The day a membership answer was taken on: the store's last bar date after the bundle's bars (the sync imports
 * the members with its first day), else today. A member tushare gives no `in_date` is valid from it.
 */
const SEEN_ON = `(select coalesce((select max(trade_date) from daily_bars), current_date) as d)`

export async function mergeThsMember(client: pg.PoolClient, s: StagedFile): Promise<MergeCounts> {
  const table = ident(s.name)
  const outDate = column(s, 'out_date', 'date', 'm')
  const placed = `(${column(s, 'is_new', 'text', 'm')} is distinct from 'N' or ${outDate} is not null)`
  // without in_date: the start of the open edge already stored, else the day this answer was taken on
  const validFrom = `coalesce(${column(s, 'in_date', 'date', 'm')},
    (select min(e.valid_from) from theme_edges e where e.theme = b.name and e.segment = $1 and e.code = m.code
       and e.valid_to is null), seen.d)`
  const counts = await counted(
    client,
    `insert into theme_edges (theme, segment, code, weight, evidence, track, valid_from, valid_to)
     select distinct on (b.name, m.code, valid_from) b.name, $1, m.code, 1, $2, '', ${validFrom} as valid_from, ${outDate}
     from ${table} m join concept_boards b on b.code = m.ts_code cross join ${SEEN_ON} seen
     where ${placed}
     order by b.name, m.code, valid_from, m.line desc
     on conflict (theme, segment, code, valid_from) do update set valid_to = excluded.valid_to,
       evidence = excluded.evidence, weight = excluded.weight
       where (theme_edges.valid_to, theme_edges.evidence, theme_edges.weight)
         is distinct from (excluded.valid_to, excluded.evidence, excluded.weight)`,
    [CONCEPT_SEGMENT, CONCEPT_EVIDENCE],
  )
  // a member gone from its board's answer is closed the day before the answer that lacks it (boards answered only)
  const gone = `from theme_edges e, ${SEEN_ON} seen
     where e.segment = $1 and e.valid_to is null
       and e.theme in (select b.name from concept_boards b where b.code in (select ts_code from ${table}))
       and not exists (select from ${table} m join concept_boards b on b.code = m.ts_code
                       where b.name = e.theme and m.code = e.code and ${placed})`
  await client.query(
    `delete from theme_edges t using (select e.theme, e.code, e.valid_from ${gone} and e.valid_from >= seen.d) x
     where t.theme = x.theme and t.segment = $1 and t.code = x.code and t.valid_from = x.valid_from`,
    [CONCEPT_SEGMENT],
  )
  const closed =
    (
      await client.query(
        `update theme_edges t set valid_to = x.d - 1
         from (select e.theme, e.code, e.valid_from, seen.d ${gone}) x
         where t.theme = x.theme and t.segment = $1 and t.code = x.code and t.valid_from = x.valid_from`,
        [CONCEPT_SEGMENT],
      )
    ).rowCount ?? 0
  const { rows } = await client.query<{ n: number }>(
    `select count(*)::int as n from ${table} m
     where not ${placed} or not exists (select from concept_boards b where b.code = m.ts_code)`,
  )
  const skipped = rows[0]?.n ?? 0
  const withClosed = { ...counts, updated: counts.updated + closed }
  return skipped === 0
    ? withClosed
    : { ...withClosed, skipped, skippedWhy: 'members gone without an out_date, or of a board ths_index does not name' }
}

export async function mergeThsDaily(client: pg.PoolClient, s: StagedFile): Promise<MergeCounts> {
  await refuseRepeats(client, 'ths_daily.csv', s, ['ts_code', 'trade_date'])
  const cols = ['open', 'high', 'low', 'pre_close', 'pct_change', 'volume', 'amount'] as const
  const values = cols.map((c) => column(s, c)).join(', ')
  return counted(
    client,
    `insert into concept_bars (code, trade_date, close, ${cols.join(', ')})
     select ts_code, trade_date, close, ${values} from ${ident(s.name)}
     on conflict (code, trade_date) do update set close = excluded.close,
       ${cols.map((c) => `${c} = excluded.${c}`).join(', ')}
       where (concept_bars.close, ${cols.map((c) => `concept_bars.${c}`).join(', ')})
         is distinct from (excluded.close, ${cols.map((c) => `excluded.${c}`).join(', ')})`,
  )
}

/** Every staged file of the bundle into the store, in dependency order; per-file counts. */
export async function mergeTushareBundle(
  client: pg.PoolClient,
  staged: Staged,
  /** Filled with the milliseconds each step took. */
  timings: Record<string, number> = {},
): Promise<Map<TushareStage, MergeCounts>> {
  const out = new Map<TushareStage, MergeCounts>()
  // the merge hashes and sorts whole files: in 4 MB (the default) a 2 M-row join spills to disk in batches
  await client.query(`set local work_mem = '256MB'`)
  await client.query(`set local maintenance_work_mem = '256MB'`)
  const run = async (stage: TushareStage, merge: (s: StagedFile) => Promise<MergeCounts>) => {
    const file = staged.get(stage)
    if (!file) return
    const started = performance.now()
    out.set(stage, await merge(file))
    timings[stage] = Math.round(performance.now() - started)
  }
  await run('trade_cal', (s) => mergeTradeCalendar(client, s))
  await run('namechange', (s) => mergeNameChanges(client, s))
  await run('stock_st', (s) => mergeStockSt(client, s))
  await run('daily', () => mergeDaily(client, staged))
  await run('adj_factor', () => {
    const bars = out.get('daily')
    return mergeAdjFactors(client, staged, bars ? bars.inserted + bars.updated : 0)
  })
  await run('suspend_d', () => mergeSuspensions(client, staged))
  const stStarted = performance.now()
  await refreshStFlags(client, staged)
  timings.is_st = Math.round(performance.now() - stStarted)
  await run('daily_basic', () => mergeDailyBasic(client, staged))
  await run('fina_indicator', (s) => mergeFinaIndicator(client, s))
  await run('stk_limit', () => mergeStkLimit(client, staged))
  await run('ths_index', (s) => mergeThsIndex(client, s))
  await run('ths_member', (s) => mergeThsMember(client, s))
  await run('ths_daily', (s) => mergeThsDaily(client, s))
  return out
}

/** Names that mark ST or delisting: ST, *ST, S*ST, SST, or 退 anywhere (退市整理, XX退). */
const ST_OR_DELISTING_NAME = `(name ~ ${ST_NAME} or name like '%退%')`

export interface NameStFlags {
  /** Codes of the bundle's stock_basic whose current name carries ST, *ST or 退. */
  readonly codes: number
  /** The day from which they are flagged: the store's last bar date; null when the store has no bar. */
  readonly from: string | null
}

/**
 * A bundle without ST history (no namechange, no stock_st) whose stock_basic names carry ST, *ST or 退: the
 * name is true on the day the list was taken, not before, so those codes are flagged ST from the store's last
 * bar date on (an open st_periods row) and earlier days are left as they were. Codes whose ST history the store
 * already holds for that day are left alone.
 */
export async function stFromNames(client: pg.PoolClient, securities: string): Promise<NameStFlags> {
  const { rows } = await client.query<{ codes: number; from: string | null }>(
    `select (select count(*)::int from ${ident(securities)} where ${ST_OR_DELISTING_NAME}) as codes,
            (select max(trade_date)::text from daily_bars) as from`,
  )
  const codes = rows[0]?.codes ?? 0
  const from = rows[0]?.from ?? null
  if (codes === 0 || from === null) return { codes, from }
  await client.query(
    `insert into st_periods (code, start_date, end_date, name)
     select s.code, $1::date, null, s.name from ${ident(securities)} s
     where ${ST_OR_DELISTING_NAME.replaceAll('name', 's.name')} and not exists (select from st_periods p where p.code = s.code
       and p.start_date <= $1::date and (p.end_date is null or p.end_date >= $1::date))
     on conflict (code, start_date) do nothing`,
    [from],
  )
  await client.query(
    `update daily_bars b set is_st = true from ${ident(securities)} s
     where b.code = s.code and b.trade_date >= $1::date and not b.is_st and ${ST_OR_DELISTING_NAME.replaceAll('name', 's.name')}`,
    [from],
  )
  return { codes, from }
}
