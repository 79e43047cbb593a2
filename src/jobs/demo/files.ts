/** The native CSV files: names, header rows and the field-by-field writers of the two big files. */
import type { CsvFileWriter } from './csv-writer.js'
import type { BarSeries } from './prices.js'

const BAR_COLUMNS = [
  'code',
  'trade_date',
  'open',
  'high',
  'low',
  'close',
  'pre_close',
  'volume',
  'amount',
  'turnover_rate',
  'adj_factor',
  'is_suspended',
  'is_st',
] as const

export const HEADERS = {
  'securities.csv': ['code', 'name', 'exchange', 'board', 'industry', 'list_date', 'delist_date'],
  'bars.csv': BAR_COLUMNS,
  'index_bars.csv': BAR_COLUMNS,
  'basics.csv': ['code', 'trade_date', 'pe_ttm', 'pb', 'total_mv', 'circ_mv'],
  'financials.csv': [
    'code',
    'end_date',
    'ann_date',
    'eps',
    'bvps',
    'roe',
    'gross_margin',
    'ocf_to_np',
    'debt_to_assets',
    'revenue_yoy',
    'np_yoy',
  ],
  'forecasts.csv': ['code', 'as_of', 'fiscal_year', 'eps_mean', 'eps_low', 'eps_high'],
  'theme_edges.csv': ['theme', 'segment', 'code', 'weight', 'evidence', 'track'],
  'theme_events.csv': ['trade_date', 'theme', 'intensity', 'title'],
  'holdings.csv': ['code', 'qty', 'cost_price', 'updated_at'],
} as const satisfies Record<string, readonly string[]>

export type DemoFile = keyof typeof HEADERS

export const DEMO_FILES = Object.keys(HEADERS) as DemoFile[]

/** One bars.csv row: prices in fen, volume in shares, amount in yuan, turnover in percent. */
export function writeBar(w: CsvFileWriter, code: Uint8Array, date: Uint8Array, s: BarSeries, t: number, st: boolean) {
  const adj = s.adj[t]!
  w.ascii(code).comma().ascii(date).comma()
  w.decimal(s.open[t]!, 2).comma().decimal(s.high[t]!, 2).comma().decimal(s.low[t]!, 2).comma()
  w.decimal(s.close[t]!, 2).comma().decimal(s.pre[t]!, 2).comma()
  w.int(s.volume[t]!).comma().int(s.amount[t]!).comma().fixed(s.turnover[t]!, 4).comma()
  if (adj === 1) w.int(1)
  else w.fixed(adj, 6)
  w.comma()
    .bool(s.suspended[t] === 1)
    .comma()
    .bool(st)
    .endRow()
}

/** One basics.csv row; pe_ttm stays empty unless the TTM EPS is positive. */
export function writeBasics(
  w: CsvFileWriter,
  code: Uint8Array,
  date: Uint8Array,
  closeFen: number,
  eps: number,
  bvps: number,
  totalShares: number,
  floatShares: number,
): void {
  const close = closeFen / 100
  w.ascii(code).comma().ascii(date).comma()
  if (eps > 0) w.fixed(close / eps, 2)
  w.comma()
    .fixed(close / bvps, 4)
    .comma()
    .int(Math.round(close * totalShares))
    .comma()
  w.int(Math.round(close * floatShares)).endRow()
}
