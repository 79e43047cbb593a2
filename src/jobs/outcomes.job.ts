import type { Board } from '../domain/codes.js'
import { limitRatio } from '../domain/limit-rules.js'
import { computeOutcomes, type EntryBar, HORIZONS, limitUpPrice, outcomeWindow } from '../domain/outcomes.js'
import { signalIcs } from '../domain/signal-ic.js'
import type { SignalName } from '../domain/signals.js'
import { tradingDaysBetween } from '../domain/trading-days.js'
import type { Logger } from '../logger.js'
import type { MarketDataRepository } from '../storage/market-data.repository.js'
import type { EntryBarRow, OutcomesRepository } from '../storage/outcomes.repository.js'
import type { IsoDate } from '../storage/schema.js'
import type { SignalIcRepository } from '../storage/signal-ic.repository.js'
import { type DateArgs, type JobResult, throwIfAborted } from './job.js'

export interface OutcomesJobDeps {
  readonly outcomes: OutcomesRepository
  readonly signalIc: SignalIcRepository
  readonly market: MarketDataRepository
  /** The regime status published with the plan of `date`, or null when its snapshot cannot be read. */
  readonly regimeOf: (date: IsoDate) => Promise<string | null>
  readonly latestBarDate: () => Promise<IsoDate | undefined>
  readonly benchmark: string
  readonly log: Logger
  readonly horizons?: readonly number[]
  /** Stores the track-record statistics of plan days with outcomes at the horizon and none yet; returns how many. */
  readonly writeDayStats?: (horizon: number, signal: AbortSignal) => Promise<number>
}

export interface OutcomesJobResult extends JobResult {
  /** Rows written per horizon. */
  readonly written: Record<string, number>
}

/** Trading days from listing to `date`, 1 on the first day; Infinity when unknown or before the known calendar. */
function listedDaysOn(listDate: IsoDate | null, date: IsoDate, calendar: readonly IsoDate[]): number {
  if (listDate === null || calendar.length === 0 || listDate < calendar[0]!) return Number.POSITIVE_INFINITY
  return tradingDaysBetween(calendar, listDate, date)
}

function entryBar(row: EntryBarRow, date: IsoDate, calendar: readonly IsoDate[]): EntryBar {
  // A code without a previous close (its first day) or on a day without limits has no limit to open at.
  const ratio =
    row.pre_close === null || row.board === null
      ? null
      : limitRatio(row.board as Board, row.is_st, date, listedDaysOn(row.list_date, date, calendar))
  const limitUp = ratio === null || row.pre_close === null ? null : limitUpPrice(row.pre_close, ratio)
  return { open: row.open, adjFactor: row.adj_factor, suspended: row.is_suspended, limitUp }
}

/**
 * Outcomes of every published plan date T whose T+h is on or before `date` (the chain's data date) and that has
 * none yet: incremental, idempotent, and blind to bars after `date`.
 */
export async function runOutcomes(
  deps: OutcomesJobDeps,
  args: DateArgs,
  signal: AbortSignal,
): Promise<OutcomesJobResult> {
  const date = args.date ?? (await deps.latestBarDate())
  if (!date) throw new Error('no daily bars imported: run `stockplan import` or `stockplan demo` first')
  const calendar = await deps.market.calendar(date)
  const written: Record<string, number> = {}
  const regimes = new Map<IsoDate, Promise<string | null>>()
  const regimeOf = (planDate: IsoDate): Promise<string | null> => {
    if (!regimes.has(planDate)) regimes.set(planDate, deps.regimeOf(planDate))
    return regimes.get(planDate)!
  }
  const horizons = deps.horizons ?? HORIZONS
  // the counts' keys in horizon order, whichever horizon finishes first
  for (const horizon of horizons) {
    written[`h${horizon}`] = 0
    written[`ic${horizon}`] = 0
    if (deps.writeDayStats) written[`stats${horizon}`] = 0
  }
  /** One horizon's outcomes, then the signal ICs and statistics that read them. */
  const runHorizon = async (horizon: number): Promise<void> => {
    for (const planDate of await deps.outcomes.datesWithoutOutcomes(horizon, date)) {
      const window = outcomeWindow(calendar, planDate, horizon)
      if (!window) continue
      throwIfAborted(signal)
      const codes = await deps.outcomes.tierCodes(planDate)
      const [entryRows, exit, benchmarkWindow, regime] = await Promise.all([
        deps.outcomes.entryBars(window.entryDate, codes),
        deps.outcomes.exitBars(window.exitDate, codes),
        deps.outcomes.indexWindow(deps.benchmark, window.entryDate, window.exitDate),
        regimeOf(planDate),
      ])
      const rows = computeOutcomes({
        date: planDate,
        horizon,
        ...window,
        codes,
        entry: new Map(entryRows.map((r) => [r.code, entryBar(r, window.entryDate, calendar)])),
        exit,
        benchmark: deps.benchmark,
        benchmarkWindow,
        regime,
      })
      written[`h${horizon}`]! += await deps.outcomes.insert(rows)
    }
    written[`ic${horizon}`] = await writeSignalIcs(deps.signalIc, horizon, signal)
    if (deps.writeDayStats) written[`stats${horizon}`] = await deps.writeDayStats(horizon, signal)
  }
  // The horizons touch rows of their own: they run side by side, each one's computing while another waits on the
  // store. Every one settles before the step returns or fails, so a failed step leaves no query of its own running.
  const settled = await Promise.allSettled(horizons.map(runHorizon))
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected')
  if (failed) throw failed.reason
  const total = Object.entries(written).reduce((a, [k, n]) => a + (k.startsWith('h') ? n : 0), 0)
  const detail = Object.entries(written)
    .filter(([k]) => k.startsWith('h'))
    .map(([h, n]) => `${h} ${n}`)
    .join(', ')
  deps.log.info({ date, written }, 'outcomes finished')
  return { summary: `outcomes ${date}: ${total} rows (${detail})`, date, written }
}

/** Each signal's rank IC for every plan day whose outcomes at `horizon` exist and whose ICs do not yet. */
async function writeSignalIcs(repo: SignalIcRepository, horizon: number, signal: AbortSignal): Promise<number> {
  let days = 0
  for (const date of await repo.datesWithoutIc(horizon)) {
    throwIfAborted(signal)
    const { exitDate, columns, definitions } = await repo.dayOutcomes(date, horizon)
    if (exitDate === null) continue
    const ics = Object.entries(signalIcs(columns)).map(([name, v]) => ({ signal: name as SignalName, ...v }))
    await repo.insert(date, horizon, exitDate, definitions, ics)
    days++
  }
  return days
}
