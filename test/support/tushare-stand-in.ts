/**
 * A local stand-in for tushare's HTTP API, on port 0, answering from the files of a tushare bundle in tushare's
 * shapes: `{code, msg, data: {fields, items, has_more}}`, filtered by `trade_date`, `ts_code`,
 * `start_date`/`end_date`, `list_status`, `ann_date` and `period`, paged by `limit`/`offset`. `fina_indicator_vip`
 * answers from `fina_indicator.csv` (the whole market; its `period` and date range are report periods). `fail` answers an interface with an
 * error code of tushare's (once, or always); `onCall` sees each request first.
 */
import { readdir, readFile } from 'node:fs/promises'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'

export interface StandInCall {
  readonly api: string
  readonly params: Record<string, string | number>
  readonly token: string
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
  onCall: (call: StandInCall) => void
  close(): Promise<void>
}

export const RATE_LIMIT_MSG =
  '抱歉，您每分钟最多访问该接口500次，权限的具体详情访问：https://tushare.pro/document/1?doc_id=108。'
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
/** Interfaces answered from another interface's file. */
const TABLE_OF: Readonly<Record<string, string>> = { fina_indicator_vip: 'fina_indicator' }

export async function startTushareStandIn(bundleDir: string, pageLimit = 100): Promise<TushareStandIn> {
  const tables = await loadTables(bundleDir)
  const calls: StandInCall[] = []
  const fail = new Map<string, StandInFailure>()
  const state: { onCall: (call: StandInCall) => void } = { onCall: () => undefined }

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
    if (p.ts_code !== undefined) rows = rows.filter((r) => r[column('ts_code')] === String(p.ts_code))
    if (p.ann_date !== undefined) rows = rows.filter((r) => r[column('ann_date')] === String(p.ann_date))
    if (p.period !== undefined) rows = rows.filter((r) => r[column('end_date')] === String(p.period))
    if (p.list_status !== undefined) rows = rows.filter((r) => r[column('list_status')] === String(p.list_status))
    const limit = Math.min(Number(p.limit ?? pageLimit), pageLimit)
    const offset = Number(p.offset ?? 0)
    const page = rows.slice(offset, offset + limit)
    const items = page.map((r) => r.map((v) => (v === '' ? null : v)))
    return { code: 0, msg: '', data: { fields: table.fields, items, has_more: offset + limit < rows.length } }
  }

  const server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString()
    })
    req.on('end', () => {
      const parsed = JSON.parse(body) as { api_name: string; token: string; params: Record<string, string | number> }
      const call = { api: parsed.api_name, params: parsed.params ?? {}, token: parsed.token }
      calls.push(call)
      state.onCall(call)
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify(answer(call)))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    fail,
    get onCall() {
      return state.onCall
    },
    set onCall(fn) {
      state.onCall = fn
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
