/**
 * Column specs of the input CSV files of `stockplan import`, for the `native` and the `tushare` format.
 *
 * Native layout (UTF-8, header row, columns in any order, empty field = NULL): ISO dates `YYYY-MM-DD`,
 * volumes in shares, money in yuan, market values in yuan, ratios (roe, gross_margin, debt_to_assets,
 * ocf_to_np, revenue_yoy, np_yoy) as fractions (0.31 = 31%), turnover_rate in percent (tushare's unit).
 * A column the spec does not know is an error; a column missing from the header is an error when it is
 * `required`, and otherwise left out of the load (NULL or the table default on insert, untouched on update).
 *
 * Tushare bundle: one file per tushare interface, named after it, holding what the interface returns (any
 * extra columns a `fields=` choice adds are ignored; dates YYYYMMDD):
 * | file               | stored as                                                                          |
 * |--------------------|------------------------------------------------------------------------------------|
 * | stock_basic.csv    | securities; list_status L/D/P; exchange from the ts_code suffix                     |
 * | trade_cal.csv      | trading_calendar (cal_date, is_open; several exchanges: open when any is open)      |
 * | daily.csv          | daily_bars; vol lots x100 -> shares, amount thousand yuan x1000 -> yuan              |
 * | adj_factor.csv     | daily_bars.adj_factor; every daily.csv row needs one, or the bundle is refused        |
 * | daily_basic.csv    | daily_basics (total_mv, circ_mv 万元 x10000 -> yuan); turnover_rate onto the bars     |
 * | index_daily.csv    | index_bars, units as daily                                                            |
 * | fina_indicator.csv | financials, one row per (code, end_date, ann_date): every announced version kept;   |
 * |                    | for one announcement the update_flag 1 row wins. See storage/tushare-merge.ts for   |
 * |                    | the annualisation of roe and eps and for ocf_to_np.                                 |
 * | namechange.csv     | st_periods: names holding "ST" from start_date to end_date                          |
 * | stock_st.csv       | st_periods: one day per row                                                         |
 * | suspend_d.csv      | suspended-day bars (suspend_type S, whole day) at the previous close, volume 0      |
 * | stk_limit.csv      | daily_bars.up_limit / down_limit                                                    |
 * | ths_index.csv      | concept_boards (ts_code, name, type)                                                |
 * | ths_member.csv     | theme_edges: theme = the board's name, valid from in_date to out_date (see merge)   |
 * | ths_daily.csv      | concept_bars, the board index's daily bars                                          |
 * forecasts.csv, theme_edges.csv, theme_events.csv and holdings.csv have no tushare equivalent and use the
 * native layout in both formats.
 */
import type { Database } from './schema.js'

export type ImportFormat = 'native' | 'tushare'
/** Tushare files staged whole and merged by storage/tushare-merge.ts once every file of the bundle is read. */
export type TushareStage =
  | 'trade_cal'
  | 'daily'
  | 'adj_factor'
  | 'daily_basic'
  | 'fina_indicator'
  | 'namechange'
  | 'stock_st'
  | 'suspend_d'
  | 'stk_limit'
  | 'ths_index'
  | 'ths_member'
  | 'ths_daily'
export type ColumnKind = 'text' | 'date' | 'number' | 'integer' | 'boolean'
export type ImportTable =
  | 'securities'
  | 'daily_bars'
  | 'index_bars'
  | 'daily_basics'
  | 'financials'
  | 'eps_forecasts'
  | 'theme_edges'
  | 'theme_events'
  | 'holdings'

/** Row-level rules that involve more than one column. */
export type RowCheck = 'high_not_below_low'

export interface ColumnSpec {
  /** Column of the target table. */
  readonly name: string
  readonly type: ColumnKind
  /** An empty field is stored as NULL (otherwise it takes `default`, or the row is bad). */
  readonly nullable: boolean
  /** The header must hold this column: key columns and NOT NULL columns without a default. */
  readonly required: boolean
  /** Header name in the file; `null` for a column that is never read, only derived. Defaults to `name`. */
  readonly source?: string | null
  /** Stored for an empty field of a NOT NULL column (the table default), as PostgreSQL text. */
  readonly default?: string
  /** Unit factor applied to the file value (a power of ten): lots x100 -> shares, 万元 x10000 -> yuan. */
  readonly factor?: number
  /** Date layout: `iso` YYYY-MM-DD (native) or `compact` YYYYMMDD (tushare). */
  readonly dateFormat?: 'iso' | 'compact'
  /** Code columns: `stock` goes through parseCode; `index` takes `<6 digits>.<SH|SZ>` (000300.SH) as is. */
  readonly code?: 'stock' | 'ts_code' | 'index'
  /** Inclusive range of a number (after the factor). */
  readonly min?: number
  readonly max?: number
  /** Filled from the row's stock code when empty or absent, and must agree with it when given. */
  readonly derive?: 'exchange' | 'board'
  /** File value -> stored value (tushare exchange names); other values are kept as written. */
  readonly values?: Readonly<Record<string, string>>
  /** The only values a text column takes (after `values`). */
  readonly oneOf?: readonly string[]
}

export interface FileSpec {
  readonly file: string
  readonly table: (ImportTable & keyof Database) | TushareStage
  /** What produces the file: `native` or the tushare API name. */
  readonly origin: string
  readonly columns: readonly ColumnSpec[]
  readonly primaryKey: readonly string[]
  readonly checks: readonly RowCheck[]
  /** Header names no column maps: an error (native) or ignored (tushare API extras). */
  readonly unknownColumns: 'error' | 'ignore'
  /** Rows whose `column` holds `value` are skipped (tushare fina_indicator corrections: update_flag 0). */
  readonly skipRows?: { readonly column: string; readonly value: string }
}

// ----- building blocks -----

type Options = Omit<ColumnSpec, 'name' | 'type' | 'nullable' | 'required'>

const key = (name: string, type: ColumnKind, options: Options = {}): ColumnSpec => ({
  name,
  type,
  nullable: false,
  required: true,
  ...options,
})
const req = key
const opt = (name: string, type: ColumnKind, options: Options = {}): ColumnSpec => ({
  name,
  type,
  nullable: true,
  required: false,
  ...options,
})
/** NOT NULL with a table default: optional in the header, an empty field takes the default. */
const dflt = (name: string, type: ColumnKind, value: string, options: Options = {}): ColumnSpec => ({
  name,
  type,
  nullable: false,
  required: false,
  default: value,
  ...options,
})

const ISO: Options = { dateFormat: 'iso' }
const COMPACT: Options = { dateFormat: 'compact' }
const NON_NEGATIVE: Options = { min: 0 }
const PERCENT: Options = { factor: 0.01 }

const nativeCode = key('code', 'text', { code: 'stock' })

function barColumns(code: ColumnSpec): ColumnSpec[] {
  return [
    code,
    key('trade_date', 'date', ISO),
    req('open', 'number', NON_NEGATIVE),
    req('high', 'number', NON_NEGATIVE),
    req('low', 'number', NON_NEGATIVE),
    req('close', 'number', NON_NEGATIVE),
    opt('pre_close', 'number', NON_NEGATIVE),
    req('volume', 'number', NON_NEGATIVE),
    req('amount', 'number', NON_NEGATIVE),
    opt('turnover_rate', 'number', NON_NEGATIVE),
    dflt('adj_factor', 'number', '1', { min: 0 }),
    dflt('is_suspended', 'boolean', 'f'),
    dflt('is_st', 'boolean', 'f'),
  ]
}

const BAR_KEY = ['code', 'trade_date'] as const

// ----- native -----

const NATIVE_SECURITIES: FileSpec = {
  file: 'securities.csv',
  table: 'securities',
  origin: 'native',
  columns: [
    nativeCode,
    req('name', 'text'),
    dflt('exchange', 'text', '', { derive: 'exchange' }),
    dflt('board', 'text', '', { derive: 'board' }),
    opt('industry', 'text'),
    opt('list_date', 'date', ISO),
    opt('delist_date', 'date', ISO),
  ],
  primaryKey: ['code'],
  checks: [],
  unknownColumns: 'error',
}

const nativeBars = (file: string, table: 'daily_bars' | 'index_bars', code: ColumnSpec): FileSpec => ({
  file,
  table,
  origin: 'native',
  columns: barColumns(code),
  primaryKey: BAR_KEY,
  checks: ['high_not_below_low'],
  unknownColumns: 'error',
})

const NATIVE_BASICS: FileSpec = {
  file: 'basics.csv',
  table: 'daily_basics',
  origin: 'native',
  columns: [
    nativeCode,
    key('trade_date', 'date', ISO),
    opt('pe_ttm', 'number'),
    opt('pb', 'number'),
    opt('total_mv', 'number', NON_NEGATIVE),
    opt('circ_mv', 'number', NON_NEGATIVE),
  ],
  primaryKey: BAR_KEY,
  checks: [],
  unknownColumns: 'error',
}

const FINANCIAL_RATIOS = ['roe', 'gross_margin', 'ocf_to_np', 'debt_to_assets', 'revenue_yoy', 'np_yoy'] as const

const NATIVE_FINANCIALS: FileSpec = {
  file: 'financials.csv',
  table: 'financials',
  origin: 'native',
  columns: [
    nativeCode,
    key('end_date', 'date', ISO),
    key('ann_date', 'date', ISO),
    opt('eps', 'number'),
    opt('bvps', 'number'),
    ...FINANCIAL_RATIOS.map((name) => opt(name, 'number')),
  ],
  primaryKey: ['code', 'end_date', 'ann_date'],
  checks: [],
  unknownColumns: 'error',
}

/** Layouts shared by both formats: tushare has no equivalent of these files. */
const FORECASTS: FileSpec = {
  file: 'forecasts.csv',
  table: 'eps_forecasts',
  origin: 'native',
  columns: [
    nativeCode,
    key('as_of', 'date', ISO),
    key('fiscal_year', 'integer', { min: 1900, max: 2200 }),
    opt('eps_mean', 'number'),
    opt('eps_low', 'number'),
    opt('eps_high', 'number'),
  ],
  primaryKey: ['code', 'as_of', 'fiscal_year'],
  checks: [],
  unknownColumns: 'error',
}

const THEME_EDGES: FileSpec = {
  file: 'theme_edges.csv',
  table: 'theme_edges',
  origin: 'native',
  columns: [
    key('theme', 'text'),
    key('segment', 'text'),
    nativeCode,
    req('weight', 'number', { min: 0, max: 1 }),
    dflt('evidence', 'text', ''),
    dflt('track', 'text', ''),
    dflt('valid_from', 'date', '-infinity', ISO),
    opt('valid_to', 'date', ISO),
  ],
  primaryKey: ['theme', 'segment', 'code', 'valid_from'],
  checks: [],
  unknownColumns: 'error',
}

const THEME_EVENTS: FileSpec = {
  file: 'theme_events.csv',
  table: 'theme_events',
  origin: 'native',
  columns: [
    key('trade_date', 'date', ISO),
    key('theme', 'text'),
    req('intensity', 'number', { min: 0, max: 100 }),
    key('title', 'text'),
  ],
  primaryKey: ['trade_date', 'theme', 'title'],
  checks: [],
  unknownColumns: 'error',
}

const HOLDINGS: FileSpec = {
  file: 'holdings.csv',
  table: 'holdings',
  origin: 'native',
  columns: [
    nativeCode,
    req('qty', 'number'),
    opt('cost_price', 'number', NON_NEGATIVE),
    req('updated_at', 'date', ISO),
    dflt('as_of', 'date', '-infinity', ISO),
  ],
  primaryKey: ['code', 'as_of'],
  checks: [],
  unknownColumns: 'error',
}

// ----- tushare -----

const tushareCode = key('code', 'text', { code: 'ts_code', source: 'ts_code' })

/** A bundle file read into its own staging table, merged later. */
const staged = (table: TushareStage, columns: ColumnSpec[], primaryKey: readonly string[] = []): FileSpec => ({
  file: `${table}.csv`,
  table,
  origin: table,
  columns,
  primaryKey,
  checks: [],
  unknownColumns: 'ignore',
})

const TUSHARE_SECURITIES: FileSpec = {
  file: 'stock_basic.csv',
  table: 'securities',
  origin: 'stock_basic',
  columns: [
    tushareCode,
    req('name', 'text'),
    dflt('exchange', 'text', '', { derive: 'exchange', values: { SSE: 'SH', SZSE: 'SZ', BSE: 'BJ' } }),
    dflt('board', 'text', '', { derive: 'board', source: null }),
    opt('industry', 'text'),
    opt('list_date', 'date', COMPACT),
    opt('delist_date', 'date', COMPACT),
    opt('list_status', 'text', { oneOf: ['L', 'D', 'P'] }),
  ],
  primaryKey: ['code'],
  checks: [],
  unknownColumns: 'ignore',
}

const TUSHARE_PRICES = (code: ColumnSpec): ColumnSpec[] => [
  code,
  key('trade_date', 'date', COMPACT),
  req('open', 'number', NON_NEGATIVE),
  req('high', 'number', NON_NEGATIVE),
  req('low', 'number', NON_NEGATIVE),
  req('close', 'number', NON_NEGATIVE),
  opt('pre_close', 'number', NON_NEGATIVE),
  req('volume', 'number', { source: 'vol', factor: 100, min: 0 }),
  req('amount', 'number', { factor: 1000, min: 0 }),
]

const TUSHARE_DAILY: FileSpec = { ...staged('daily', TUSHARE_PRICES(tushareCode)), checks: ['high_not_below_low'] }

const TUSHARE_ADJ_FACTOR = staged('adj_factor', [
  tushareCode,
  key('trade_date', 'date', COMPACT),
  req('adj_factor', 'number', { min: 0 }),
])

const TUSHARE_DAILY_BASIC = staged('daily_basic', [
  tushareCode,
  key('trade_date', 'date', COMPACT),
  opt('turnover_rate', 'number', NON_NEGATIVE),
  opt('pe_ttm', 'number'),
  opt('pb', 'number'),
  opt('total_mv', 'number', { factor: 10_000, min: 0 }),
  opt('circ_mv', 'number', { factor: 10_000, min: 0 }),
])

const TUSHARE_INDEX_DAILY: FileSpec = {
  file: 'index_daily.csv',
  table: 'index_bars',
  origin: 'index_daily',
  columns: TUSHARE_PRICES(key('code', 'text', { code: 'index', source: 'ts_code' })),
  primaryKey: BAR_KEY,
  checks: ['high_not_below_low'],
  unknownColumns: 'ignore',
}

const TUSHARE_FINA_INDICATOR = staged('fina_indicator', [
  tushareCode,
  key('end_date', 'date', COMPACT),
  req('ann_date', 'date', COMPACT),
  opt('eps', 'number'),
  opt('bvps', 'number', { source: 'bps' }),
  opt('ocfps', 'number'),
  opt('roe', 'number', PERCENT),
  opt('roe_yearly', 'number', PERCENT),
  // tushare `gross_margin` is the gross profit in yuan; the margin in percent is `grossprofit_margin`
  opt('gross_margin', 'number', { ...PERCENT, source: 'grossprofit_margin' }),
  opt('debt_to_assets', 'number', PERCENT),
  opt('revenue_yoy', 'number', { ...PERCENT, source: 'or_yoy' }),
  opt('np_yoy', 'number', { ...PERCENT, source: 'netprofit_yoy' }),
  opt('update_flag', 'integer', { min: 0, max: 1 }),
])

const TUSHARE_TRADE_CAL = staged('trade_cal', [
  opt('exchange', 'text'),
  key('cal_date', 'date', COMPACT),
  req('is_open', 'boolean'),
])

const TUSHARE_NAMECHANGE = staged('namechange', [
  tushareCode,
  req('name', 'text'),
  key('start_date', 'date', COMPACT),
  opt('end_date', 'date', COMPACT),
])

const TUSHARE_STOCK_ST = staged('stock_st', [tushareCode, opt('name', 'text'), key('trade_date', 'date', COMPACT)])

const TUSHARE_SUSPEND_D = staged('suspend_d', [
  tushareCode,
  key('trade_date', 'date', COMPACT),
  opt('suspend_timing', 'text'),
  req('suspend_type', 'text', { oneOf: ['S', 'R'] }),
])

const TUSHARE_STK_LIMIT = staged('stk_limit', [
  tushareCode,
  key('trade_date', 'date', COMPACT),
  opt('up_limit', 'number', NON_NEGATIVE),
  opt('down_limit', 'number', NON_NEGATIVE),
])

// Concept boards (同花顺 concepts): board codes such as 885800.TI are kept as written.
const TUSHARE_THS_INDEX = staged(
  'ths_index',
  [key('ts_code', 'text'), req('name', 'text'), opt('type', 'text')],
  ['ts_code'],
)

const TUSHARE_THS_MEMBER = staged('ths_member', [
  key('ts_code', 'text'),
  key('code', 'text', { code: 'ts_code', source: 'con_code' }),
  opt('weight', 'number', { min: 0 }),
  opt('in_date', 'date', COMPACT),
  opt('out_date', 'date', COMPACT),
  opt('is_new', 'text', { oneOf: ['Y', 'N'] }),
])

const TUSHARE_THS_DAILY = staged(
  'ths_daily',
  [
    key('ts_code', 'text'),
    key('trade_date', 'date', COMPACT),
    opt('open', 'number', NON_NEGATIVE),
    opt('high', 'number', NON_NEGATIVE),
    opt('low', 'number', NON_NEGATIVE),
    req('close', 'number', NON_NEGATIVE),
    opt('pre_close', 'number', NON_NEGATIVE),
    opt('pct_change', 'number'),
    opt('volume', 'number', { source: 'vol', min: 0 }),
    opt('amount', 'number', NON_NEGATIVE),
  ],
  ['ts_code', 'trade_date'],
)

const INDEX_CODE = key('code', 'text', { code: 'index' })

/** Every input file of a format, in load order (securities first). */
export const FILE_SPECS: Readonly<Record<ImportFormat, readonly FileSpec[]>> = {
  native: [
    NATIVE_SECURITIES,
    nativeBars('bars.csv', 'daily_bars', nativeCode),
    nativeBars('index_bars.csv', 'index_bars', INDEX_CODE),
    NATIVE_BASICS,
    NATIVE_FINANCIALS,
    FORECASTS,
    THEME_EDGES,
    THEME_EVENTS,
    HOLDINGS,
  ],
  tushare: [
    TUSHARE_SECURITIES,
    TUSHARE_TRADE_CAL,
    TUSHARE_DAILY,
    TUSHARE_ADJ_FACTOR,
    TUSHARE_DAILY_BASIC,
    TUSHARE_INDEX_DAILY,
    TUSHARE_FINA_INDICATOR,
    TUSHARE_NAMECHANGE,
    TUSHARE_STOCK_ST,
    TUSHARE_SUSPEND_D,
    TUSHARE_STK_LIMIT,
    TUSHARE_THS_INDEX,
    TUSHARE_THS_MEMBER,
    TUSHARE_THS_DAILY,
    FORECASTS,
    THEME_EDGES,
    THEME_EVENTS,
    HOLDINGS,
  ],
}

/** The header name a column is read from, or null when it is only derived. */
export function sourceOf(column: ColumnSpec): string | null {
  return column.source === undefined ? column.name : column.source
}
