/**
 * `stockplan sync [--from D --to D]`: the days' data from tushare's HTTP API into the store. Each trading day's
 * answers are written as a tushare bundle in a temp folder and imported by the bundle import, in one transaction:
 * the store is what the same data imported as a bundle gives, by construction, and a day is there whole or not
 * at all (a kill while fetching or importing leaves it absent; the next run starts with it). The run's reference
 * data (trade_cal, stock_basic L/D/P, namechange, the concept boards ths_index type N) is fetched once and imported
 * with its first day; each board's members (ths_member) after its last day, the day a member without `in_date`
 * is valid from. A day's bundle carries the financial reports announced since the
 * previous synced day, and again those of the last `reportWindowDays` trading days (tushare loads a report the day
 * after its disclosure), as its `fina_indicator.csv` (see sync-financials.ts).
 *
 * Each day's `daily`, `adj_factor`, `daily_basic` and `stk_limit` come in one call each (split by code lists only
 * when an answer fills the interface's row limit), checked against the listed codes and the day before. Late data
 * is a state, not a failure: a bar without its factor is held back (not imported) and a code without valuations is
 * imported without them; the day is recorded in sync_incomplete_days with what it lacks, and every later sync asks
 * for it again until it is whole. A `daily` lacking a code that traded (sync-traded-codes.ts says which did) is such
 * a late interface too: the day is imported with the bars it has and asked again. A day without `daily`, or with
 * one far shorter than the day before's (still loading), stops the run before it.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { writeBundleFile } from '../datasource/tushare/bundle-files.js'
import { type TushareClient, TushareError, type TushareTable } from '../datasource/tushare/client.js'
import { INTERFACES } from '../datasource/tushare/interfaces.js'
import { shownText } from '../datasource/tushare/shown-text.js'
import type { Logger } from '../logger.js'
import type { IncompleteDay, SyncGapsRepository } from '../storage/sync-gaps.repository.js'
import type { ImportResult } from './import/import-job.js'
import { throwIfAborted } from './job.js'
import type { Progress } from './progress.js'
import { announcedBy, reportQueries } from './sync-financials.js'
import { type Listings, listingsOf, tradedCodes } from './sync-traded-codes.js'

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
  /** The days imported incomplete, and the bars of a stored day. */
  readonly gaps: Pick<SyncGapsRepository, 'list' | 'record' | 'tradedBars'>
  readonly today: () => string
  readonly log: Logger
  readonly progress: Progress
  /** The benchmark index fetched with index_daily. */
  readonly benchmark: string
  /** Trading days whose announcement dates each sync asks for again (TUSHARE_REPORT_DAYS). */
  readonly reportWindowDays: number
  /** Aborts when the whole sync has taken too long (TUSHARE_SYNC_TIMEOUT_MIN). */
  readonly deadline?: AbortSignal
  /** Rows the answers one step keeps together may hold (`KEPT_ROWS` unless a test asks for less). */
  readonly keptRows?: KeptRows
}

/** Why a run stopped before a trading day: tushare has no (or a partial) `daily` for it yet. */
export interface SyncStop {
  readonly day: string
  readonly reason: string
}

export interface SyncResult {
  readonly summary: string
  readonly days: string[]
  /** Interfaces skipped for want of permission, with what the build then lacks. */
  readonly skipped: string[]
  readonly calls: Record<string, number>
  /** Days imported earlier incomplete that this run made whole. */
  readonly completed: string[]
  /** Days still incomplete after this run, with what each lacks. */
  readonly incomplete: IncompleteDay[]
  /** Set when the run stopped before a trading day whose bars tushare does not have yet. */
  readonly stopped?: SyncStop
}

export class SyncInputError extends Error {
  override name = 'SyncInputError'
}

/** The sync stopped part way (a daily quota, its deadline): the whole days synced before stay. */
export class SyncStoppedError extends Error {
  override name = 'SyncStoppedError'
}

/** What the build loses without an interface: said in the warning of a permission skip. */
const MISSING: Readonly<Record<string, string>> = {
  daily: 'every bar of the day (nothing to build on)',
  adj_factor: 'adjustment factors (every bar is held back until they come)',
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

/** Interfaces asked once per trading day besides the five of `barInterfaces`, and their parameters. */
const OTHER_DAILY_INTERFACES = ['index_daily', 'ths_daily'] as const

/** A daily answer this much shorter than the trading day before is taken as still loading (with at least this many codes). */
const PARTIAL_DAILY_SHARE = 0.1
const PARTIAL_DAILY_MIN_CODES = 20
/** The calendar is asked from this many calendar days per window day before the first day (holidays included). */
const CALENDAR_DAYS_PER_WINDOW_DAY = 3

const compact = (iso: string): string => iso.replaceAll('-', '')
const iso = (yyyymmdd: string): string => `${yyyymmdd.slice(0, 4)}-${yyyymmdd.slice(4, 6)}-${yyyymmdd.slice(6, 8)}`
const shiftDay = (date: string, days: number): string =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10)
const nextDay = (date: string): string => shiftDay(date, 1)
const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`

/** A trading day's bar interfaces as fetched: the files to import and the codes each late interface lacks. */
interface DayData {
  readonly files: Map<string, TushareTable>
  readonly missing: Record<string, number>
  readonly bars: number
}

export async function runSync(deps: SyncDeps, args: SyncArgs, outer: AbortSignal): Promise<SyncResult> {
  const signal = deps.deadline ? AbortSignal.any([outer, deps.deadline]) : outer
  const days: string[] = []
  try {
    return await sync(deps, args, signal, days)
  } catch (err) {
    if (deps.deadline?.aborted && !outer.aborted) {
      throw new SyncStoppedError(
        `sync: the whole-sync deadline passed (TUSHARE_SYNC_TIMEOUT_MIN); ${keptDays(days)}; rerun it to go on`,
      )
    }
    if (err instanceof TushareError && err.kind === 'quota') {
      throw new SyncStoppedError(`${err.message}; the sync stops here: ${keptDays(days)}`)
    }
    throw err
  }
}

const keptDays = (days: readonly string[]): string =>
  days.length === 0 ? 'no day was synced' : `${plural(days.length, 'whole day')} synced through ${days.at(-1)} kept`

async function sync(deps: SyncDeps, args: SyncArgs, signal: AbortSignal, days: string[]): Promise<SyncResult> {
  const latest = await deps.latestBarDate()
  const from = args.from ?? (latest ? nextDay(latest) : undefined)
  if (!from) throw new SyncInputError('the store has no bars yet: give the first day to sync with --from YYYY-MM-DD')
  const to = args.to ?? deps.today()
  const late = (await deps.gaps.list()).filter((d) => d.day < from || d.day > to)
  if (from > to && late.length === 0) {
    const summary = `sync: nothing to do (the store is complete through ${latest ?? to})`
    return { summary, days: [], skipped: [], calls: {}, completed: [], incomplete: [] }
  }
  const tushare = createSyncCalls(deps, signal)
  const reference = await fetchReference(tushare, deps, from, to)
  const completed = await completeLateDays(deps, tushare, reference, late, signal)
  const stopped = await syncDays(deps, tushare, reference, { latest, from, to }, days, signal)
  if (reference.members && days.length > 0) {
    await importDay(deps, new Map([['ths_member', reference.members]]), signal)
  }
  // a night with no trading day to sync (a holiday) still brings the calendar: the sessions ahead are known
  const calendar = reference.files.get('trade_cal')
  if (days.length === 0 && calendar) await importDay(deps, new Map([['trade_cal', calendar]]), signal)
  const incomplete = await deps.gaps.list()
  const { skipped } = tushare
  const calls = Object.fromEntries(deps.client.calls)
  const summary = syncSummary({ days, calls, completed, incomplete, skipped, stopped })
  deps.log.info({ from, to, days: days.length, calls, incomplete: incomplete.length }, 'sync finished')
  return {
    summary,
    days,
    skipped: [...skipped].map(([api, lost]) => `${api}: the build lacks ${lost}`),
    calls,
    completed,
    incomplete,
    stopped,
  }
}

/** A run's calls to tushare: an interface the token lacks permission for is warned of once, then answers null. */
function createSyncCalls(deps: Pick<SyncDeps, 'client' | 'log'>, signal: AbortSignal) {
  const skipped = new Map<string, string>()
  const guarded = async <T>(api: string, ask: () => Promise<T>): Promise<T | null> => {
    if (skipped.has(api)) return null
    try {
      return await ask()
    } catch (err) {
      if (!(err instanceof TushareError) || err.kind !== 'permission') throw err
      const lost = MISSING[api] ?? 'its data'
      skipped.set(api, lost)
      deps.log.warn({ api }, `${err.message}: skipped; the build lacks ${lost}`)
      return null
    }
  }
  return {
    /** Interfaces skipped for want of permission, with what the build then lacks. */
    skipped: skipped as ReadonlyMap<string, string>,
    guarded,
    /** An interface's answer, every page of it, or null when skipped. */
    fetch: (api: string, params: Record<string, string>) => guarded(api, () => deps.client.query(api, params, signal)),
    /** One call's answer, marked `cut` when it filled the interface's row limit. */
    once: (api: string, params: Record<string, string>) => deps.client.once(api, params, signal),
  }
}

type SyncCalls = ReturnType<typeof createSyncCalls>

/** The run's reference data, fetched once and imported with its first day (the board members after its last). */
interface Reference {
  /** Every open day of the calendar asked, the report window's included. */
  readonly allOpen: string[]
  /** The trading days to sync. */
  readonly openDays: string[]
  readonly files: ReadonlyMap<string, TushareTable>
  /** The listed codes, when stock_basic answered. */
  readonly codes?: ReadonlySet<string>
  /** Their listing dates. */
  readonly listings?: Listings
  readonly members?: TushareTable
}

async function fetchReference(
  calls: SyncCalls,
  deps: Pick<SyncDeps, 'progress' | 'reportWindowDays' | 'keptRows'>,
  from: string,
  to: string,
): Promise<Reference> {
  const windowStart = shiftDay(from, -CALENDAR_DAYS_PER_WINDOW_DAY * deps.reportWindowDays - 7)
  // no end date: the whole calendar tushare publishes (the year's sessions and holidays ahead), which the plan due
  // and the alerts read; the days to sync are cut from it below
  const calendar = await calls.fetch('trade_cal', { exchange: 'SSE', start_date: compact(windowStart) })
  const allOpen = calendar ? openDaysOf(calendar) : []
  const openDays = calendar ? allOpen.filter((d) => d >= from && d <= to) : from <= to ? [from] : []
  const files = new Map<string, TushareTable>()
  // the calendar from the run's first day on: the earlier days only place the report window
  if (calendar) files.set('trade_cal', keepCalendar(calendar, from))
  const basics: TushareTable[] = []
  for (const status of ['L', 'D', 'P']) {
    const answer = await calls.fetch('stock_basic', { list_status: status })
    if (answer) basics.push(answer)
  }
  const securities = basics.length > 0 ? concat(basics) : undefined
  if (securities) files.set('stock_basic', securities)
  const names = await calls.fetch('namechange', {})
  if (names) files.set('namechange', names)
  // imported after the run's last day: a member without in_date is valid from the day it was seen on
  let members: TushareTable | undefined
  const boards = await calls.fetch('ths_index', { exchange: 'A', type: 'N' })
  if (boards) {
    files.set('ths_index', boards)
    deps.progress.start('concept board members', boards.items.length, 'boards')
    const maxRows = (deps.keptRows ?? KEPT_ROWS).conceptMembers
    const answer = await conceptMembers(boards, maxRows, async (code) => {
      const answer = await calls.fetch('ths_member', { ts_code: code })
      deps.progress.tick()
      return answer
    })
    deps.progress.done()
    if (answer) members = answer
  }
  const listings = securities ? listingsOf(securities) : undefined
  return { allOpen, openDays, files, codes: listings ? new Set(listings.keys()) : undefined, listings, members }
}

/** One bar interface's rows for a day: one call, or code lists when the answer filled the row limit. */
function dayTable(
  calls: SyncCalls,
  codes: ReadonlySet<string> | undefined,
  api: string,
  day: string,
): Promise<TushareTable | null> {
  return calls.guarded(api, async () => {
    const whole = await calls.once(api, { trade_date: compact(day) })
    if (!whole.cut) return whole
    if (!codes) {
      throw new TushareError(
        api,
        'answer',
        `tushare ${api}: ${day} fills one call and there is no stock list to split it by`,
      )
    }
    const size = Math.floor(INTERFACES[api]!.rowLimit / 2)
    const list = [...codes].sort()
    const parts: TushareTable[] = []
    for (let i = 0; i < list.length; i += size) {
      const part = await calls.once(api, { trade_date: compact(day), ts_code: list.slice(i, i + size).join(',') })
      if (part.cut) throw new TushareError(api, 'answer', `tushare ${api}: ${size} codes of ${day} still fill one call`)
      parts.push(part)
    }
    return concat(parts)
  })
}

/**
 * The bar interfaces of `day` and its suspensions: bars without their factor held back, and what each late
 * interface lacks (`daily` the codes that traded but have no bar, see sync-traded-codes.ts).
 */
async function barInterfaces(
  calls: SyncCalls,
  reference: Pick<Reference, 'codes' | 'listings'>,
  day: string,
  expected: number | undefined,
): Promise<DayData | SyncStop> {
  const { codes } = reference
  const daily = await dayTable(calls, codes, 'daily', day)
  if (!daily || daily.items.length === 0) {
    return {
      day,
      reason: `tushare has no daily bars for ${day} yet (it publishes them 15:00-17:00 Shanghai time); rerun the sync after that`,
    }
  }
  const code = daily.fields.indexOf('ts_code')
  if (codes) {
    const stranger = daily.items.find((row) => !codes.has(String(row[code])))
    if (stranger) {
      throw new TushareError(
        'daily',
        'answer',
        `tushare daily: ${day} has a bar of ${shownText(stranger[code], 40)}, a code stock_basic does not list: the answer is refused`,
      )
    }
  }
  const short = expected === undefined ? 0 : expected - daily.items.length
  if (expected !== undefined && short > expected * PARTIAL_DAILY_SHARE && short >= PARTIAL_DAILY_MIN_CODES) {
    return {
      day,
      reason: `tushare's daily for ${day} has ${daily.items.length} bars against ${expected} the trading day before: still loading; rerun the sync later`,
    }
  }
  const factors = await dayTable(calls, codes, 'adj_factor', day)
  if (!factors)
    throw new TushareError(
      'adj_factor',
      'permission',
      `tushare adj_factor: no permission; bars cannot be stored without their factors`,
    )
  const withFactor = codeSet(factors)
  const kept = daily.items.filter((row) => withFactor.has(String(row[code])))
  const files = new Map<string, TushareTable>([
    ['daily', { fields: daily.fields, items: kept }],
    ['adj_factor', factors],
  ])
  const missing: Record<string, number> = { daily: 0, adj_factor: daily.items.length - kept.length }
  const basic = await dayTable(calls, codes, 'daily_basic', day)
  if (basic) {
    const valued = codeSet(basic)
    missing.daily_basic = kept.filter((row) => !valued.has(String(row[code]))).length
    if (basic.items.length > 0) files.set('daily_basic', basic)
  }
  const limits = await dayTable(calls, codes, 'stk_limit', day)
  if (limits) files.set('stk_limit', limits)
  const suspensions = await calls.fetch('suspend_d', { trade_date: compact(day) })
  if (suspensions) files.set('suspend_d', suspensions)
  const traded = tradedCodes(compact(day), { factors, basics: basic, suspensions, listings: reference.listings })
  const barred = codeSet(daily)
  missing.daily = [...traded].filter((c) => !barred.has(c)).length
  return { files, missing, bars: daily.items.length }
}

/** What a day lacks, in words ('' when it is whole). */
const describe = (missing: Readonly<Record<string, number>>): string =>
  Object.entries(missing)
    .filter(([, n]) => n > 0)
    .map(([api, n]) => `${api} ${plural(n, 'code')}`)
    .join(', ')

/** Days imported incomplete before, asked again whole or not: the ones made whole. */
async function completeLateDays(
  deps: SyncDeps,
  calls: SyncCalls,
  reference: Pick<Reference, 'codes' | 'listings'>,
  late: readonly IncompleteDay[],
  signal: AbortSignal,
): Promise<string[]> {
  const completed: string[] = []
  for (const gap of late) {
    throwIfAborted(signal)
    const data = await barInterfaces(calls, reference, gap.day, undefined)
    if ('reason' in data) continue
    await importDay(deps, data.files, signal)
    await deps.gaps.record(gap.day, data.missing)
    if (describe(data.missing) === '') completed.push(gap.day)
    else deps.log.warn({ day: gap.day }, `tushare still lacks for ${gap.day}: ${describe(data.missing)}`)
  }
  return completed
}

/**
 * The run's trading days in order, each fetched and imported whole (the reference data with the first): pushed
 * onto `days` as they are stored; the stop before a day tushare does not have yet, if any.
 */
async function syncDays(
  deps: SyncDeps,
  calls: SyncCalls,
  reference: Reference,
  range: { latest: string | undefined; from: string; to: string },
  days: string[],
  signal: AbortSignal,
): Promise<SyncStop | undefined> {
  const { latest, from, to } = range
  // the day before the first is the store's last bar when it comes first; a rerun of stored days starts at --from
  let previous = latest === undefined ? undefined : latest < from ? latest : shiftDay(from, -1)
  let expected = latest !== undefined && latest < from ? await deps.gaps.tradedBars(latest) : undefined
  let stopped: SyncStop | undefined
  deps.progress.start(`sync ${from}..${to}`, reference.openDays.length, 'days')
  for (const day of reference.openDays) {
    throwIfAborted(signal)
    const data = await barInterfaces(calls, reference, day, expected && expected > 0 ? expected : undefined)
    if ('reason' in data) {
      stopped = data
      deps.log.warn({ day }, `${data.reason}: stopping before it`)
      break
    }
    const files = new Map<string, TushareTable>(days.length === 0 ? reference.files : [])
    for (const [api, table] of data.files) files.set(api, table)
    for (const [api, table] of await otherDailyFiles(calls, deps.benchmark, day)) files.set(api, table)
    const again = days.length === 0 ? windowDates(reference.allOpen, day, deps.reportWindowDays, previous) : []
    const reports = await financialReports(calls, previous, day, again, (deps.keptRows ?? KEPT_ROWS).reportsOfADay)
    if (reports) files.set('fina_indicator', reports)
    await importDay(deps, files, signal)
    await deps.gaps.record(day, data.missing)
    if (describe(data.missing) !== '')
      deps.log.warn({ day }, `imported ${day} without what tushare lacks yet: ${describe(data.missing)}`)
    days.push(day)
    previous = day
    expected = data.bars
    deps.progress.tick()
  }
  deps.progress.done(`${plural(days.length, 'day')} synced`)
  return stopped
}

/** The day's answers of the interfaces besides the bars' (suspensions, the benchmark, concept board bars). */
async function otherDailyFiles(calls: SyncCalls, benchmark: string, day: string): Promise<Map<string, TushareTable>> {
  const files = new Map<string, TushareTable>()
  for (const api of OTHER_DAILY_INTERFACES) {
    const params: Record<string, string> =
      api === 'index_daily'
        ? { ts_code: benchmark, start_date: compact(day), end_date: compact(day) }
        : { trade_date: compact(day) }
    const answer = await calls.fetch(api, params)
    if (answer) files.set(api, answer)
  }
  return files
}

/** Reports announced after `previous` through `day` (and again the window's, on the first day). */
async function financialReports(
  calls: SyncCalls,
  previous: string | undefined,
  day: string,
  again: string[],
  maxRows: number,
): Promise<TushareTable | null> {
  const answers: TushareTable[] = []
  const queries = reportQueries(previous, day)
  const asked = new Set(queries.map((q) => ('ann_date' in q ? q.ann_date : '')))
  const repeats =
    'period' in (queries[0] ?? {}) ? [] : again.filter((d) => !asked.has(d)).map((ann_date) => ({ ann_date }))
  const keep = rowBudget('fina_indicator_vip', maxRows, `the reports asked with ${day}`)
  for (const query of [...repeats, ...queries]) {
    const answer = await calls.fetch('fina_indicator_vip', { ...query })
    if (!answer) return null
    keep(answer)
    answers.push(answer)
  }
  return announcedBy(answers, day)
}

function syncSummary(run: {
  days: readonly string[]
  calls: Readonly<Record<string, number>>
  completed: readonly string[]
  incomplete: readonly IncompleteDay[]
  skipped: ReadonlyMap<string, string>
  stopped: SyncStop | undefined
}): string {
  const { days, completed, incomplete, skipped, stopped } = run
  const total = Object.values(run.calls).reduce((n, c) => n + c, 0)
  const range = days.length > 0 ? `${days[0]}..${days.at(-1)}` : 'no day'
  return (
    `sync ${range}: ${plural(days.length, 'day')} imported, ${total} tushare calls` +
    (completed.length > 0 ? `; completed late data of ${completed.join(', ')}` : '') +
    (incomplete.length > 0
      ? `; incomplete (asked again by the next sync): ${incomplete.map((d) => `${d.day} (${describe(d.missing)})`).join('; ')}`
      : '') +
    (skipped.size > 0 ? `; skipped for want of permission: ${[...skipped.keys()].join(', ')}` : '') +
    (stopped ? `; stopped before ${stopped.day}: ${stopped.reason}` : '')
  )
}

/**
 * The announcement dates asked again with a run's first day: every calendar day from the `window`-th trading day
 * before `day` through `previous` (later ones are asked anyway).
 */
export function windowDates(
  open: readonly string[],
  day: string,
  window: number,
  previous: string | undefined,
): string[] {
  if (window <= 0 || previous === undefined) return []
  const before = open.filter((d) => d < day)
  const start = before.at(-window) ?? before[0]
  if (start === undefined) return []
  const out: string[] = []
  for (let d = start; d <= previous; d = nextDay(d)) out.push(compact(d))
  return out
}

/**
 * Rows the answers one step keeps together may hold, far above what a real market's have (about 40,000 concept board
 * memberships; the reports asked with a first synced day, eight periods of some 5,400 companies, about 45,000): each
 * query's memory is bounded by the client, but a step that keeps hundreds of answers would let a hostile source fill
 * the heap one query at a time.
 */
export interface KeptRows {
  readonly conceptMembers: number
  readonly reportsOfADay: number
}

export const KEPT_ROWS: KeptRows = Object.freeze({ conceptMembers: 500_000, reportsOfADay: 200_000 })

/** Counts the rows of the answers a step keeps; past `max` the sync stops before anything of them is written. */
function rowBudget(api: string, max: number, what: string): (answer: TushareTable) => void {
  let kept = 0
  return (answer) => {
    kept += answer.items.length
    if (kept > max)
      throw new TushareError(
        api,
        'answer',
        `tushare ${api}: ${what} passed ${max.toLocaleString('en-US')} rows together, far more than a real market's: refused, nothing written; check that TUSHARE_URL is tushare's`,
      )
  }
}

/** ths_member wants one board per call: every board's members, or null when the interface was skipped. */
async function conceptMembers(
  boards: TushareTable,
  maxRows: number,
  members: (board: string) => Promise<TushareTable | null>,
): Promise<TushareTable | null> {
  const code = boards.fields.indexOf('ts_code')
  const keep = rowBudget('ths_member', maxRows, "the concept boards' members")
  const answers: TushareTable[] = []
  for (const item of boards.items) {
    const answer = await members(String(item[code]))
    if (!answer) return null
    keep(answer)
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

function keepCalendar(calendar: TushareTable, from: string): TushareTable {
  const date = calendar.fields.indexOf('cal_date')
  const first = compact(from)
  return { fields: calendar.fields, items: calendar.items.filter((r) => String(r[date]) >= first) }
}

function codeSet(table: TushareTable): Set<string> {
  const code = table.fields.indexOf('ts_code')
  return new Set(table.items.map((row) => String(row[code])))
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
