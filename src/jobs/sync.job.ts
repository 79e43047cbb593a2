/**
 * `stockplan sync [--from D --to D]`: the days' data from tushare's HTTP API into the store. Each trading day's
 * answers are written as a tushare bundle in a temp folder and imported by the bundle import, in one transaction:
 * the store is what the same data imported as a bundle gives, by construction, and a day is there whole or not
 * at all (a kill while fetching or importing leaves it absent; the next run starts with it). The run's reference
 * data (trade_cal, stock_basic L/D/P, namechange, the concept boards ths_index type N and each board's ths_member)
 * is fetched once and imported with its first day. A day's bundle carries the financial reports announced since the
 * previous synced day (`fina_indicator_vip`, see sync-financials.ts) as its `fina_indicator.csv`: every announced
 * version enters the store on the first synced day on or after its announcement, never before.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { writeBundleFile } from '../datasource/tushare/bundle-files.js'
import { type TushareClient, TushareError, type TushareTable } from '../datasource/tushare/client.js'
import type { Logger } from '../logger.js'
import type { ImportResult } from './import/import-job.js'
import { throwIfAborted } from './job.js'
import type { Progress } from './progress.js'
import { announcedBy, reportQueries } from './sync-financials.js'

export interface SyncArgs {
  readonly from?: string
  readonly to?: string
}

export interface SyncDeps {
  readonly client: TushareClient
  /** The bundle import (`import --format tushare`) of one folder, one transaction. */
  readonly importBundle: (dir: string, signal: AbortSignal) => Promise<ImportResult>
  /** The store's last bar date: a run without --from starts the day after it. */
  readonly latestBarDate: () => Promise<string | undefined>
  readonly today: () => string
  readonly log: Logger
  readonly progress: Progress
  /** The benchmark index fetched with index_daily. */
  readonly benchmark: string
}

export interface SyncResult {
  readonly summary: string
  readonly days: string[]
  /** Interfaces skipped for want of permission, with what the build then lacks. */
  readonly skipped: string[]
  readonly calls: Record<string, number>
}

export class SyncInputError extends Error {
  override name = 'SyncInputError'
}

/** What the build loses without an interface: said in the warning of a permission skip. */
const MISSING: Readonly<Record<string, string>> = {
  daily: 'every bar of the day (nothing to build on)',
  adj_factor: 'adjustment factors (the day cannot be imported)',
  daily_basic: 'turnover and valuation (pe_ttm, pb, market value): the valuation and liquidity signals',
  stk_limit: 'limit prices (the limit-up counts fall back to the dated limit rules)',
  suspend_d: 'suspension rows (suspended codes drop out of the tier table)',
  index_daily: 'the benchmark (regime and excess returns)',
  namechange: 'ST history (ST flags from names only, with a warning)',
  stock_basic: 'listings and names',
  trade_cal: 'the calendar (index bars serve as the calendar)',
  ths_index: 'concept boards (no theme edges from them: heat only from curated themes)',
  ths_member: 'concept board members (no theme edges from them: heat only from curated themes)',
  fina_indicator_vip:
    'financial reports: the quality signals (quality_roe, cash_conversion) and the valuation from BVPS and ROE (upside) lose their reports',
  ths_daily: "concept board bars (a theme without curated events gets its heat from its members' breadth only)",
}

/** Interfaces asked once per trading day, and their parameters. */
const DAILY_INTERFACES = [
  'daily',
  'adj_factor',
  'daily_basic',
  'stk_limit',
  'suspend_d',
  'index_daily',
  'ths_daily',
] as const

const compact = (iso: string): string => iso.replaceAll('-', '')
const iso = (yyyymmdd: string): string => `${yyyymmdd.slice(0, 4)}-${yyyymmdd.slice(4, 6)}-${yyyymmdd.slice(6, 8)}`
const shiftDay = (date: string, days: number): string =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10)
const nextDay = (date: string): string => shiftDay(date, 1)

export async function runSync(deps: SyncDeps, args: SyncArgs, signal: AbortSignal): Promise<SyncResult> {
  const latest = await deps.latestBarDate()
  const from = args.from ?? (latest ? nextDay(latest) : undefined)
  if (!from) throw new SyncInputError('the store has no bars yet: give the first day to sync with --from YYYY-MM-DD')
  const to = args.to ?? deps.today()
  if (from > to) {
    const summary = `sync: nothing to do (the store is complete through ${latest ?? to})`
    return { summary, days: [], skipped: [], calls: {} }
  }
  const skipped = new Map<string, string>()
  /** An interface's answer, or null when the token lacks permission for it (warned once). */
  const fetch = async (api: string, params: Record<string, string>): Promise<TushareTable | null> => {
    if (skipped.has(api)) return null
    try {
      return await deps.client.query(api, params, signal)
    } catch (err) {
      if (!(err instanceof TushareError) || err.kind !== 'permission') throw err
      const lost = MISSING[api] ?? 'its data'
      skipped.set(api, lost)
      deps.log.warn({ api }, `${err.message}: skipped; the build lacks ${lost}`)
      return null
    }
  }

  const calendar = await fetch('trade_cal', { exchange: 'SSE', start_date: compact(from), end_date: compact(to) })
  const openDays = calendar ? openDaysOf(calendar) : [from]
  const reference = new Map<string, TushareTable>()
  if (calendar) reference.set('trade_cal', calendar)
  const basics: TushareTable[] = []
  for (const status of ['L', 'D', 'P']) {
    const answer = await fetch('stock_basic', { list_status: status })
    if (answer) basics.push(answer)
  }
  if (basics.length > 0) reference.set('stock_basic', concat(basics))
  const names = await fetch('namechange', {})
  if (names) reference.set('namechange', names)
  const boards = await fetch('ths_index', { exchange: 'A', type: 'N' })
  if (boards) {
    reference.set('ths_index', boards)
    deps.progress.start('concept board members', boards.items.length, 'boards')
    const members = await conceptMembers(boards, async (code) => {
      const answer = await fetch('ths_member', { ts_code: code })
      deps.progress.tick()
      return answer
    })
    deps.progress.done()
    if (members) reference.set('ths_member', members)
  }

  /** Reports announced after `previous` through `day`, as fina_indicator.csv; null when skipped or none. */
  const financialReports = async (previous: string | undefined, day: string): Promise<TushareTable | null> => {
    const answers: TushareTable[] = []
    for (const query of reportQueries(previous, day)) {
      const answer = await fetch('fina_indicator_vip', { ...query })
      if (!answer) return null
      answers.push(answer)
    }
    return announcedBy(answers, day)
  }

  // the day before the first is the store's last bar when it comes first; a rerun of stored days starts at --from
  let previous = latest === undefined ? undefined : latest < from ? latest : shiftDay(from, -1)
  const days: string[] = []
  deps.progress.start(`sync ${from}..${to}`, openDays.length, 'days')
  for (const day of openDays) {
    throwIfAborted(signal)
    const files = new Map<string, TushareTable>(days.length === 0 ? reference : [])
    for (const api of DAILY_INTERFACES) {
      const params: Record<string, string> =
        api === 'index_daily'
          ? { ts_code: deps.benchmark, start_date: compact(day), end_date: compact(day) }
          : { trade_date: compact(day) }
      const answer = await fetch(api, params)
      if (answer) files.set(api, answer)
    }
    const reports = await financialReports(previous, day)
    if (reports) files.set('fina_indicator', reports)
    if ((files.get('daily')?.items.length ?? 0) === 0) {
      deps.log.warn({ day }, `tushare has no daily bars for ${day} yet: stopping before it`)
      break
    }
    await importDay(deps, files, signal)
    days.push(day)
    previous = day
    deps.progress.tick()
  }
  deps.progress.done(`${days.length} day${days.length === 1 ? '' : 's'} synced`)
  const calls = Object.fromEntries(deps.client.calls)
  const total = Object.values(calls).reduce((n, c) => n + c, 0)
  const range = days.length > 0 ? `${days[0]}..${days.at(-1)}` : 'no day'
  const summary =
    `sync ${range}: ${days.length} day${days.length === 1 ? '' : 's'} imported, ${total} tushare calls` +
    (skipped.size > 0 ? `; skipped for want of permission: ${[...skipped.keys()].join(', ')}` : '')
  deps.log.info({ from, to, days: days.length, calls }, 'sync finished')
  return {
    summary,
    days,
    skipped: [...skipped].map(([api, lost]) => `${api}: the build lacks ${lost}`),
    calls,
  }
}

/** ths_member wants one board per call: every board's members, or null when the interface was skipped. */
async function conceptMembers(
  boards: TushareTable,
  members: (board: string) => Promise<TushareTable | null>,
): Promise<TushareTable | null> {
  const code = boards.fields.indexOf('ts_code')
  const answers: TushareTable[] = []
  for (const item of boards.items) {
    const answer = await members(String(item[code]))
    if (!answer) return null
    if (answer.fields.length > 0) answers.push(answer)
  }
  return answers.length > 0 ? concat(answers) : null
}

function openDaysOf(calendar: TushareTable): string[] {
  const date = calendar.fields.indexOf('cal_date')
  const open = calendar.fields.indexOf('is_open')
  const days = new Set<string>()
  for (const item of calendar.items) if (Number(item[open]) === 1) days.add(iso(String(item[date])))
  return [...days].sort()
}

function concat(tables: readonly TushareTable[]): TushareTable {
  const fields = tables[0]!.fields
  const items: (readonly unknown[])[] = []
  for (const table of tables) {
    const order = fields.map((f) => table.fields.indexOf(f))
    for (const item of table.items) items.push(order.map((i) => (i < 0 ? null : item[i])))
  }
  return { fields, items }
}

/** One day's answers as a bundle in a temp folder, imported in one transaction, then the folder removed. */
async function importDay(deps: SyncDeps, files: ReadonlyMap<string, TushareTable>, signal: AbortSignal): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'stockplan-sync-'))
  try {
    for (const [api, table] of files) await writeBundleFile(dir, api, table)
    const result = await deps.importBundle(dir, signal)
    deps.log.info({ files: result.files.length }, result.summary.split('\n')[0])
    for (const warning of result.warnings) deps.log.warn(warning)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
