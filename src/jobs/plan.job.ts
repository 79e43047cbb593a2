import type pg from 'pg'
import { renderPlanMarkdown } from '../domain/markdown.js'
import { cutPlan, DEFAULT_SIZES, decideCode, selectRows } from '../domain/plan-assembly.js'
import { computeMarket, computeRegime } from '../domain/regime.js'
import { notATradingDay } from '../domain/trading-days.js'
import type { Logger } from '../logger.js'
import type { PlanAssembler } from '../services/plan-assembler.js'
import type { Db } from '../storage/db.js'
import type { MarketDataRepository } from '../storage/market-data.repository.js'
import type { PlanFiles } from '../storage/plan-files.js'
import { loadMarketInput, type MarketInputSource } from '../storage/regime-input.repository.js'
import type { NewStockDailyRow } from '../storage/schema.js'
import { replaceStockDaily } from '../storage/stock-daily.repository.js'
import { type DateArgs, type JobResult, throwIfAborted } from './job.js'

export interface PlanJobDeps {
  readonly db: Db
  /** The pool the day's rows are copied in through (COPY needs a client of its own). */
  readonly pool: pg.Pool
  readonly latestTierDate: () => Promise<string | undefined>
  readonly market: MarketDataRepository
  readonly assembler: PlanAssembler
  readonly files: PlanFiles
  readonly log: Logger
  readonly planVersion: string
  readonly codeVersion: string
  readonly now: () => Date
  /** Told after the files are written, so an in-process plan cache can forget what it knew of the date. */
  readonly onPlanWritten?: (date: string) => void
  /** The whole-market figures: the store's (default), or a replay's history read once. */
  readonly marketInput?: MarketInputSource
  /** Handed the date's daily rows as they are written and its regime (a replay keeps them for the next days). */
  readonly onDailyWritten?: (date: string, rows: readonly NewStockDailyRow[], regime: string) => void
  /** Takes the write of the daily rows instead of waiting for it (a replay awaits it before the day is done). */
  readonly writeBehind?: (write: Promise<void>) => void
}

export interface PlanJobResult extends JobResult {
  readonly main: number
  readonly observe: number
  readonly regime: string
  readonly snapshot: string
  readonly planFile: string
}

export class PlanInputError extends Error {
  override name = 'PlanInputError'
}

/** The full plan for T: regime, snapshot (with `_full`), Markdown plan file and the per-stock daily rows. */
export async function runPlan(deps: PlanJobDeps, args: DateArgs, signal: AbortSignal): Promise<PlanJobResult> {
  const date = args.date ?? (await deps.latestTierDate())
  if (!date) throw new PlanInputError('the tier table is empty: run `stockplan build` first')
  const closed = args.date === undefined ? undefined : notATradingDay(date, await deps.market.calendarAround(date))
  if (closed) throw new PlanInputError(closed)
  const day = await deps.assembler.loadDay(date, 'all')
  if (!day) throw new PlanInputError(`no tier scores for ${date}: run \`stockplan build --date ${date}\` first`)
  throwIfAborted(signal)

  const generatedAt = deps.now().toISOString()
  const full = deps.assembler.toFull(day, generatedAt)
  const plan = cutPlan(full, DEFAULT_SIZES)
  const calendar = await deps.market.calendar(date)
  const market = computeMarket(
    await (deps.marketInput ? deps.marketInput(date, calendar) : loadMarketInput(deps.db, date, calendar)),
  )
  const regime = computeRegime(market, date)
  throwIfAborted(signal)

  const selection = selectRows(full, DEFAULT_SIZES)
  const daily: NewStockDailyRow[] = day.rows.map((row) => {
    const verdict = decideCode(row.code, row, day.held, selection)
    const memory = day.memories.get(row.code)!
    return {
      code: row.code,
      trade_date: date,
      verdict: verdict.decision,
      card_rank: verdict.card_rank,
      plan_version: deps.planVersion,
      logic_state: memory.state,
      score: memory.score,
      score_ema: memory.score_ema,
      score_pct: memory.score_pct,
      pct_ema: memory.pct_ema,
      state_since: memory.state_since,
      state_rule: memory.state_rule,
      days_in_state: memory.days_in_state,
      above_days: memory.above_days,
      absent_days: memory.absent_days,
      code_version: deps.codeVersion,
    }
  })
  // Files first, rows last: a crash in between leaves complete files and the earlier complete rows.
  await deps.files.writeSnapshot(date, JSON.stringify({ ...plan, regime, market, _full: full }))
  const planFile = await deps.files.writePlan(date, renderPlanMarkdown(plan, regime, market))
  throwIfAborted(signal)
  const write = replaceStockDaily(deps.pool, date, daily).then(() => deps.onPlanWritten?.(date))
  deps.onDailyWritten?.(date, daily, regime.status)
  if (deps.writeBehind) deps.writeBehind(write)
  else await write
  const summary = `plan ${date}: ${plan.main.length} main, ${plan.observe.length} observe, regime ${regime.status}`
  deps.log.info({ date, main: plan.main.length, observe: plan.observe.length, regime: regime.status }, 'plan finished')
  return {
    summary,
    date,
    main: plan.main.length,
    observe: plan.observe.length,
    regime: regime.status,
    snapshot: deps.files.snapshotPath(date),
    planFile,
  }
}
