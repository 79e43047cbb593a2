/**
 * A local stand-in for tushare's HTTP API, on port 0, answering from the files of a tushare bundle in tushare's
 * shapes: `{code, msg, data: {fields, items, has_more}}`, filtered by `trade_date`, `ts_code` (a comma list),
 * `start_date`/`end_date`, `list_status`, `ann_date` and `period`. `fina_indicator_vip` answers from
 * `fina_indicator.csv` (the whole market; its `period` and date range are report periods). `fail` answers an
 * interface with an error code of tushare's (once, or always); `onCall` sees each request first; `rewrite` turns an
 * interface's answers into a hostile tushare's.
 *
 * It behaves as the real API does where the real API is less kind than a file (issue 39), each from its source:
 * - `fields` empty answers only an interface's default columns (默认显示 Y); named fields answer those columns.
 *   stock_basic hides exchange, list_status, delist_date (https://tushare.pro/document/2?doc_id=25);
 *   ths_member hides weight, in_date, out_date, is_new, and fills none of the first three (暂无)
 *   (https://tushare.pro/document/2?doc_id=261); fina_indicator hides update_flag (the reading of
 *   https://tushare.pro/document/2?doc_id=79, whose rows past `fa_turn` mark more columns N); stk_limit hides
 *   pre_close (https://tushare.pro/document/2?doc_id=183).
 * - daily, adj_factor, daily_basic and stk_limit do not page: `offset` is ignored (a maintainer: "这个接口不支持分页",
 *   https://github.com/waditu/tushare/issues/1582), `limit` is honoured, and one call answers at most 6000 rows for
 *   daily (https://developer.aliyun.com/article/1747364) and daily_basic (https://tushare.pro/wctapi/documents/32.md),
 *   5800 for stk_limit, which also lists funds (https://tushare.pro/document/2?doc_id=183), and a whole day for
 *   adj_factor (no per-call limit documented, https://tushare.pro/wctapi/documents/28.md; 6000 here).
 * - `today` (YYYYMMDD): a financial report shows from the day after its announcement ("数据一般在财报披露后T+1入库",
 *   https://developer.aliyun.com/article/1749625).
 * - `late`: an interface's rows of a day (all, or some codes) not there yet: adj_factor arrives hours late and in
 *   part (https://github.com/waditu/tushare/issues/1720), daily_basic after daily (updated 15:00-17:00 or 17:00-19:00,
 *   https://tushare.pro/wctapi/documents/32.md, https://developer.aliyun.com/article/1747585).
 * - `DAILY_QUOTA_MSG` is tushare's per-day quota answer (https://github.com/waditu/tushare/issues/1846); it contains
 *   权限 like the permission answer.
 */
import { readdir, readFile } from 'node:fs/promises'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'

export interface StandInCall {
  readonly api: string
  readonly params: Record<string, string | number>
  readonly token: string
  /** The `fields` asked for ('' = the defaults). */
  readonly fields: string
}

/** An interface's rows of one trading day that tushare has not loaded yet: all, or only these codes. */
export interface LateRows {
  readonly day: string
  readonly codes?: readonly string[]
}

/** An answer as the stand-in sends it. */
export interface AnswerBody {
  readonly code: number
  readonly msg: string
  readonly data: { fields: string[]; items: (string | null)[][]; has_more: boolean } | null
}

export interface StandInFailure {
  readonly code: number
  readonly msg: string
  /** How many calls it answers; unset = every call. */
  times?: number
  /** Only calls whose params match these. */
  readonly when?: Record<string, string>
}

export interface TushareStandIn {
  readonly url: string
  readonly calls: StandInCall[]
  readonly fail: Map<string, StandInFailure>
  /** Per interface: rows not loaded yet. */
  readonly late: Map<string, LateRows>
  /** Per interface: rows it no longer answers (a member gone from its board), by the row's named values. */
  readonly drop: Map<string, (row: Readonly<Record<string, string>>) => boolean>
  /** Per interface: the answer as a hostile tushare would send it instead (another header, rows not asked for). */
  readonly rewrite: Map<string, (answer: AnswerBody, call: StandInCall) => unknown>
  /** The day the stand-in answers on (YYYYMMDD): reports announced on it or later are not loaded yet. */
  today: string | undefined
  onCall: (call: StandInCall) => void
  close(): Promise<void>
}

export const RATE_LIMIT_MSG =
  '抱歉，您每分钟最多访问该接口500次，权限的具体详情访问：https://tushare.pro/document/1?doc_id=108。'
export const DAILY_QUOTA_MSG =
  '抱歉，您每天最多访问该接口20000次，权限的具体详情访问：https://tushare.pro/document/1?doc_id=108。'
export const NO_PERMISSION_MSG =
  '抱歉，您没有接口访问权限，权限的具体详情访问：https://tushare.pro/document/1?doc_id=108。'

/** Splits a CSV line of the bundle (no quoted commas in the golden files). */
const split = (line: string): string[] => line.split(',')

async function loadTables(dir: string): Promise<Map<string, { fields: string[]; rows: string[][] }>> {
  const tables = new Map<string, { fields: string[]; rows: string[][] }>()
  for (const name of await readdir(dir)) {
    if (!name.endsWith('.csv')) continue
    const lines = (await readFile(path.join(dir, name), 'utf8')).split('\n').filter((l) => l.trim() !== '')
    tables.set(name.slice(0, -4), { fields: split(lines[0]!), rows: lines.slice(1).map(split) })
  }
  return tables
}

const DATE_FIELD: Readonly<Record<string, string>> = { trade_cal: 'cal_date', fina_indicator_vip: 'end_date' }
/** Columns an empty `fields` leaves out (默认显示 N), per interface; sources in the header. */
const NOT_DEFAULT: Readonly<Record<string, readonly string[]>> = {
  stock_basic: ['exchange', 'list_status', 'delist_date', 'fullname', 'enname', 'curr_type', 'is_hs'],
  ths_member: ['weight', 'in_date', 'out_date', 'is_new'],
  fina_indicator_vip: ['update_flag'],
  stk_limit: ['pre_close'],
}
/** Columns tushare does not fill (暂无) whatever is asked. */
const UNFILLED: Readonly<Record<string, readonly string[]>> = { ths_member: ['weight', 'in_date', 'out_date'] }
/** Interfaces that answer one call of at most this many rows and ignore `offset`. */
const ONE_CALL: Readonly<Record<string, number>> = { daily: 6000, adj_factor: 6000, daily_basic: 6000, stk_limit: 5800 }
/** Interfaces answered from another interface's file. */
const TABLE_OF: Readonly<Record<string, string>> = { fina_indicator_vip: 'fina_indicator' }

export interface StandInOptions {
  /** ths_member answers its dates as the bundle has them (a stand-in for a tushare that fills them). */
  readonly memberDates?: boolean
}

export async function startTushareStandIn(
  bundleDir: string,
  pageLimit = 100,
  options: StandInOptions = {},
): Promise<TushareStandIn> {
  const tables = await loadTables(bundleDir)
  const calls: StandInCall[] = []
  const fail = new Map<string, StandInFailure>()
  const late = new Map<string, LateRows>()
  const drop = new Map<string, (row: Readonly<Record<string, string>>) => boolean>()
  const rewrite = new Map<string, (answer: AnswerBody, call: StandInCall) => unknown>()
  const state: { onCall: (call: StandInCall) => void; today: string | undefined } = {
    onCall: () => undefined,
    today: undefined,
  }

  const answer = (call: StandInCall): unknown => {
    const failure = fail.get(call.api)
    const matches = failure && Object.entries(failure.when ?? {}).every(([k, v]) => String(call.params[k]) === v)
    if (failure && matches && (failure.times === undefined || failure.times > 0)) {
      if (failure.times !== undefined) failure.times--
      return { code: failure.code, msg: failure.msg, data: null }
    }
    const table = tables.get(TABLE_OF[call.api] ?? call.api)
    if (!table) return { code: 40101, msg: `接口名称不存在: ${call.api}`, data: null }
    const column = (name: string) => table.fields.indexOf(name)
    const dateColumn = column(DATE_FIELD[call.api] ?? 'trade_date')
    const p = call.params
    let rows = table.rows
    if (p.trade_date !== undefined) rows = rows.filter((r) => r[dateColumn] === String(p.trade_date))
    if (p.start_date !== undefined) rows = rows.filter((r) => r[dateColumn]! >= String(p.start_date))
    if (p.end_date !== undefined) rows = rows.filter((r) => r[dateColumn]! <= String(p.end_date))
    if (p.ts_code !== undefined) {
      const codes = new Set(String(p.ts_code).split(','))
      rows = rows.filter((r) => codes.has(r[column('ts_code')]!))
    }
    if (p.ann_date !== undefined) rows = rows.filter((r) => r[column('ann_date')] === String(p.ann_date))
    if (p.period !== undefined) rows = rows.filter((r) => r[column('end_date')] === String(p.period))
    if (p.list_status !== undefined) rows = rows.filter((r) => r[column('list_status')] === String(p.list_status))
    if (state.today !== undefined && call.api === 'fina_indicator_vip') {
      rows = rows.filter((r) => r[column('ann_date')]! < state.today!)
    }
    const gap = late.get(call.api)
    if (gap) {
      const codes = gap.codes ? new Set(gap.codes) : undefined
      rows = rows.filter((r) => !(r[dateColumn] === gap.day && (!codes || codes.has(r[column('ts_code')]!))))
    }
    const dropped = drop.get(call.api)
    if (dropped) rows = rows.filter((r) => !dropped(Object.fromEntries(table.fields.map((f, i) => [f, r[i]!]))))
    const asked = call.fields
      .split(',')
      .map((f) => f.trim())
      .filter((f) => f !== '')
    const hidden = new Set(NOT_DEFAULT[call.api] ?? [])
    // named fields answer every column asked, as the real API does: empty where the bundle file has no such column
    const fields = asked.length > 0 ? asked : table.fields.filter((f) => !hidden.has(f))
    const unfilled = new Set(options.memberDates ? [] : (UNFILLED[call.api] ?? []))
    const shape = (r: string[]) =>
      fields.map((f) => (unfilled.has(f) || column(f) < 0 || r[column(f)] === '' ? null : r[column(f)]))
    const oneCall = ONE_CALL[call.api]
    if (oneCall !== undefined) {
      // no paging: offset ignored, the first rows up to the limit, nothing said about more
      const items = rows.slice(0, Math.min(Number(p.limit ?? oneCall), oneCall)).map(shape)
      return { code: 0, msg: '', data: { fields, items, has_more: false } }
    }
    const limit = Math.min(Number(p.limit ?? pageLimit), pageLimit)
    const offset = Number(p.offset ?? 0)
    const items = rows.slice(offset, offset + limit).map(shape)
    return { code: 0, msg: '', data: { fields, items, has_more: offset + limit < rows.length } }
  }

  /** What is sent: the answer, rewritten by `rewrite` for its interface (a hostile tushare) when one is set. */
  const sent = (call: StandInCall): unknown => {
    const plain = answer(call)
    const hostile = rewrite.get(call.api)
    return hostile ? hostile(plain as AnswerBody, call) : plain
  }

  const server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString()
    })
    req.on('end', () => {
      const parsed = JSON.parse(body) as {
        api_name: string
        token: string
        params: Record<string, string | number>
        fields?: string | string[]
      }
      const fields = Array.isArray(parsed.fields) ? parsed.fields.join(',') : (parsed.fields ?? '')
      const call = { api: parsed.api_name, params: parsed.params ?? {}, token: parsed.token, fields }
      calls.push(call)
      state.onCall(call)
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify(sent(call)))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    fail,
    late,
    drop,
    rewrite,
    get today() {
      return state.today
    },
    set today(day) {
      state.today = day
    },
    get onCall() {
      return state.onCall
    },
    set onCall(fn) {
      state.onCall = fn
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
