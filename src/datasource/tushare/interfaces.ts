/**
 * What the sync asks of each tushare interface: the columns by name (an empty `fields` gets only an interface's
 * default columns, which lack `list_status`, `update_flag`, `in_date`... ), the most rows one call answers, whether
 * the interface pages by `offset`, and the key no two rows of one answer may share. The sources of these facts are
 * cited in test/support/tushare-stand-in.ts, which plays them back.
 */
export interface InterfaceSpec {
  readonly fields: readonly string[]
  /** Rows one call answers at most: an answer this long may have been cut. */
  readonly rowLimit: number
  /** True: pages by `limit`/`offset` while `has_more`. False: one call; a cut answer is split by code lists. */
  readonly pages: boolean
  /** Columns that identify a row within one answer. */
  readonly key: readonly string[]
  /** Pages one query may follow at most, below TUSHARE_MAX_PAGES where a real answer is known to be small. */
  readonly maxPages?: number
}

const DAY_KEY = ['ts_code', 'trade_date'] as const

export const INTERFACES: Readonly<Record<string, InterfaceSpec>> = {
  trade_cal: {
    fields: ['exchange', 'cal_date', 'is_open', 'pretrade_date'],
    rowLimit: 6000,
    pages: true,
    key: ['exchange', 'cal_date'],
  },
  stock_basic: {
    fields: [
      'ts_code',
      'symbol',
      'name',
      'area',
      'industry',
      'market',
      'exchange',
      'list_status',
      'list_date',
      'delist_date',
    ],
    rowLimit: 6000,
    pages: true,
    key: ['ts_code'],
  },
  namechange: {
    fields: ['ts_code', 'name', 'start_date', 'end_date', 'ann_date', 'change_reason'],
    rowLimit: 5000,
    pages: true,
    key: [],
  },
  daily: {
    fields: [
      'ts_code',
      'trade_date',
      'open',
      'high',
      'low',
      'close',
      'pre_close',
      'change',
      'pct_chg',
      'vol',
      'amount',
    ],
    rowLimit: 6000,
    pages: false,
    key: DAY_KEY,
  },
  adj_factor: { fields: ['ts_code', 'trade_date', 'adj_factor'], rowLimit: 6000, pages: false, key: DAY_KEY },
  daily_basic: {
    fields: ['ts_code', 'trade_date', 'close', 'turnover_rate', 'pe_ttm', 'pb', 'total_mv', 'circ_mv'],
    rowLimit: 6000,
    pages: false,
    key: DAY_KEY,
  },
  stk_limit: {
    fields: ['trade_date', 'ts_code', 'pre_close', 'up_limit', 'down_limit'],
    rowLimit: 5800,
    pages: false,
    key: DAY_KEY,
  },
  suspend_d: {
    fields: ['ts_code', 'trade_date', 'suspend_timing', 'suspend_type'],
    rowLimit: 5000,
    pages: true,
    key: [],
  },
  index_daily: {
    fields: [
      'ts_code',
      'trade_date',
      'close',
      'open',
      'high',
      'low',
      'pre_close',
      'change',
      'pct_chg',
      'vol',
      'amount',
    ],
    rowLimit: 8000,
    pages: false,
    key: DAY_KEY,
  },
  fina_indicator_vip: {
    fields: [
      'ts_code',
      'ann_date',
      'end_date',
      'eps',
      'dt_eps',
      'bps',
      'ocfps',
      'roe',
      'roe_waa',
      'roe_yearly',
      'grossprofit_margin',
      'gross_margin',
      'ocf_to_profit',
      'debt_to_assets',
      'or_yoy',
      'netprofit_yoy',
      'update_flag',
    ],
    rowLimit: 5000,
    pages: true,
    key: [],
  },
  ths_index: {
    fields: ['ts_code', 'name', 'count', 'exchange', 'list_date', 'type'],
    rowLimit: 5000,
    pages: true,
    key: ['ts_code'],
  },
  ths_member: {
    fields: ['ts_code', 'con_code', 'con_name', 'weight', 'in_date', 'out_date', 'is_new'],
    rowLimit: 5000,
    pages: true,
    key: [],
    // one board's members, asked of each of about 400 boards and kept together: two pages are more codes than the
    // market lists
    maxPages: 2,
  },
  ths_daily: {
    fields: [
      'ts_code',
      'trade_date',
      'close',
      'open',
      'high',
      'low',
      'pre_close',
      'avg_price',
      'change',
      'pct_change',
      'vol',
      'turnover_rate',
    ],
    rowLimit: 3000,
    pages: true,
    key: DAY_KEY,
  },
}

/** Parameters whose value every answered row must carry, and the column that carries it. */
export const ROW_MATCHES: Readonly<Record<string, string>> = {
  trade_date: 'trade_date',
  ann_date: 'ann_date',
  period: 'end_date',
  list_status: 'list_status',
  exchange: 'exchange',
  type: 'type',
}

export function specOf(api: string): InterfaceSpec {
  const spec = INTERFACES[api]
  if (!spec) throw new Error(`tushare ${api}: no column list in interfaces.ts; add the interface there first`)
  return spec
}
