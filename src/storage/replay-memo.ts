import type { Outcome } from '../domain/outcomes.js'
import type { TierRow } from '../domain/plan-types.js'
import type { ScoredStock } from '../domain/scoring.js'
import { SIGNAL_DEFINITIONS } from '../domain/signal-definitions.js'
import { outcomeColumns } from '../domain/signal-ic.js'
import { SIGNAL_NAMES, type SignalColumns, type SignalName, type SignalValues } from '../domain/signals.js'
import type { EvalDay, EvalRow } from '../domain/track-record-day.js'
import { asJsonb } from './jsonb-shape.js'
import type { OutcomesRepository } from './outcomes.repository.js'
import type { PlanDayStatsRepository } from './plan-day-stats.repository.js'
import type { PlanInputRepository } from './plan-input.repository.js'
import type { IsoDate, NewStockDailyRow, StockDailyRow } from './schema.js'
import type { DayOutcomes, SignalIcRepository } from './signal-ic.repository.js'
import type { TrackRecordRepository } from './track-record.repository.js'

type EvalDayWithEntry = EvalDay & { entryDate: IsoDate }

/** Replayed days whose codes and signals are kept: the outcome steps read them back up to 20 trading days later. */
const KEPT_DAYS = 25

interface TierDay {
  readonly codes: string[]
  readonly scored: Map<string, ScoredStock>
  /** Each code's signals with the values a jsonb read gives, found on first use (`signalsOf`). */
  readonly signals: Map<string, SignalValues>
  /** The build's signal columns and each code's row in them; absent when a value is one jsonb would change. */
  readonly columns?: { readonly values: SignalColumns['values']; readonly rowOf: ReadonlyMap<string, number> }
}

/** A tier row as `PlanInputRepository.tierRows` reads it back: its columns in that order, jsonb as jsonb gives it. */
function storedTierRow(r: ScoredStock): TierRow {
  return {
    code: r.code,
    name: r.name,
    score: r.score,
    rank: r.rank,
    tier: r.tier,
    theme: r.theme ?? null,
    segment: r.segment ?? null,
    track: r.track ?? null,
    upside: r.upside ?? null,
    heat: r.heat ?? null,
    transmission: r.transmission ?? null,
    graph_evidence: asJsonb(r.graph_evidence) as TierRow['graph_evidence'],
    close: r.close ?? null,
    is_suspended: r.is_suspended,
    is_st: r.is_st,
    listed_days: r.listed_days,
    amount_ma20: r.amount_ma20,
    invalidated: r.invalidated,
    score_pct: r.score_pct ?? null,
    tier_rule: r.tier_rule,
    flags: asJsonb(r.flags) as TierRow['flags'],
    valuation_method: r.valuation_method ?? null,
    invalidation: r.invalidation ?? null,
    components: asJsonb(r.components) as TierRow['components'],
  }
}

/** What a replay's memo holds, shared by the readers it answers for. */
interface MemoState {
  readonly tierDays: Map<IsoDate, TierDay>
  readonly previousTierDate: Map<IsoDate, IsoDate>
  lastBuilt: IsoDate | undefined
  /** Every date this replay built, ascending: the store's tier dates from the first of them on. */
  readonly built: IsoDate[]
  readonly builtDates: Set<IsoDate>
  tierRowsDay: { date: IsoDate; rows: TierRow[] } | undefined
  readonly latestDaily: Map<string, StockDailyRow>
  readonly storedMain: Map<IsoDate, string[]>
  readonly regimes: Map<IsoDate, string | null>
  readonly dailyDays: Map<IsoDate, Map<string, { verdict: string; logicState: string }>>
  /** A plan day's outcome rows by `outcomeKey`. */
  readonly outcomes: Map<string, readonly Outcome[]>
  /** The outcome writes still running. */
  readonly inFlight: Set<Promise<unknown>>
  /** The `outcomeKey`s whose signal ICs this replay wrote. */
  readonly icWritten: Set<string>
}

/**
 * What a replay wrote, kept in memory for the steps that read it back within the same few days: the plan reads
 * the build's tier rows and yesterday's daily rows, the outcomes the codes and regime of plan days up to 20 days
 * back, the signal ICs the outcomes just written. Each answer equals the store's (the replay's identical-results
 * test holds it to the chain's); anything the memo does not hold, or might not hold exactly, is read from the
 * store. One memo per replay run, filled in date order.
 */
export function createReplayMemo() {
  const memo: MemoState = {
    tierDays: new Map(),
    previousTierDate: new Map(),
    lastBuilt: undefined,
    built: [],
    builtDates: new Set(),
    tierRowsDay: undefined,
    latestDaily: new Map(),
    storedMain: new Map(),
    regimes: new Map(),
    dailyDays: new Map(),
    outcomes: new Map(),
    inFlight: new Set(),
    icWritten: new Set(),
  }
  return {
    /** The build scored the date's tier rows (they may still be being written). */
    keepTiers: (date: IsoDate, rows: readonly ScoredStock[], signals?: SignalColumns): void =>
      keepTiers(memo, date, rows, signals),
    /** The plan published the date's daily rows (they may still be being written) and its regime. */
    keepDaily: (date: IsoDate, rows: readonly NewStockDailyRow[], regime: string): void =>
      keepDaily(memo, date, rows, regime),
    /** The plan inputs, answered from the memo where it holds the date. */
    planInputs: (inputs: PlanInputRepository): PlanInputRepository => memoPlanInputs(memo, inputs),
    /** The regime a replayed plan published, or the snapshot's. */
    regimeOf:
      (read: (date: IsoDate) => Promise<string | null>) =>
      async (date: IsoDate): Promise<string | null> =>
        memo.regimes.has(date) ? memo.regimes.get(date)! : read(date),
    /**
     * Outcome reads answered from the memo, and the rows it writes remembered for the day's signal ICs and
     * statistics. With `writeBehind`, the rows of a plan day this replay built are written behind the IC and
     * statistics steps, which learn of them from the memo (`signalIc`, `dayStats`) until they are committed.
     */
    outcomes: (repo: OutcomesRepository, writeBehind?: (write: Promise<unknown>) => void): OutcomesRepository =>
      memoOutcomes(memo, repo, writeBehind),
    /** Plan-day statistics see the plan days whose outcomes are still being written. */
    dayStats: (repo: PlanDayStatsRepository): PlanDayStatsRepository => ({
      ...repo,
      outcomeDates: async (horizon, from, to) =>
        mergeDates(
          await repo.outcomeDates(horizon, from, to),
          keptDates(memo, horizon).filter((d) => (from === undefined || d >= from) && (to === undefined || d <= to)),
        ),
    }),
    /** One plan day's evaluation rows from the memo when it holds all of them (a replay asks for the day it just did). */
    trackRecords: (repo: TrackRecordRepository): TrackRecordRepository => ({
      ...repo,
      days: async (options) => {
        const day =
          options.from !== undefined && options.from === options.to
            ? evalDay(memo, options.from, options.horizon, options.components)
            : undefined
        if (day) return [day]
        await settled(memo)
        return repo.days(options)
      },
    }),
    signalIc: (repo: SignalIcRepository): SignalIcRepository => memoSignalIc(memo, repo),
  }
}

const outcomeKey = (date: IsoDate, horizon: number) => `${date}/${horizon}`

/** Waits for the outcome writes still running (their failure is the write-behind's to report). */
async function settled(memo: MemoState): Promise<void> {
  await Promise.allSettled([...memo.inFlight])
}

/** Plan dates with outcomes kept at `horizon`. */
function keptDates(memo: MemoState, horizon: number): IsoDate[] {
  const suffix = `/${horizon}`
  return [...memo.outcomes.keys()].filter((key) => key.endsWith(suffix)).map((key) => key.slice(0, -suffix.length))
}

function keepTiers(memo: MemoState, date: IsoDate, rows: readonly ScoredStock[], signals?: SignalColumns): void {
  // A new day: the outcome rows kept for the last one's ICs and statistics are committed (the replay waits for
  // a day's writes before the next) and the store answers for them. 375,000 rows kept for 25 days made every
  // collection of the old generation slower.
  if (memo.inFlight.size === 0) {
    memo.outcomes.clear()
    memo.icWritten.clear()
  }
  const { lastBuilt } = memo
  if (lastBuilt !== undefined && lastBuilt < date) memo.previousTierDate.set(date, lastBuilt)
  if (lastBuilt === undefined || lastBuilt < date) memo.built.push(date)
  memo.builtDates.add(date)
  memo.lastBuilt = date
  const sorted = [...rows].sort((a, b) => a.rank - b.rank)
  memo.tierRowsDay = { date, rows: sorted.map(storedTierRow) }
  memo.tierDays.set(date, {
    codes: rows.map((r) => r.code).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
    scored: new Map(rows.map((r) => [r.code, r])),
    signals: new Map(),
    columns:
      signals && columnsStoredAsIs(signals)
        ? { values: signals.values, rowOf: new Map(signals.codes.map((code, i) => [code, i])) }
        : undefined,
  })
  const kept = [...memo.tierDays.keys()].sort()
  if (kept.length > KEPT_DAYS) forgetBefore(memo, kept[kept.length - KEPT_DAYS]!)
}

function forgetBefore(memo: MemoState, date: IsoDate): void {
  for (const kept of memo.tierDays.keys()) if (kept < date) memo.tierDays.delete(kept)
  for (const key of memo.outcomes.keys()) if (key < date) memo.outcomes.delete(key)
  for (const key of memo.icWritten) if (key < date) memo.icWritten.delete(key)
  for (const kept of memo.regimes.keys()) if (kept < date) memo.regimes.delete(kept)
  for (const kept of memo.storedMain.keys()) if (kept < date) memo.storedMain.delete(kept)
  for (const kept of memo.dailyDays.keys()) if (kept < date) memo.dailyDays.delete(kept)
  for (const kept of memo.previousTierDate.keys()) if (kept < date) memo.previousTierDate.delete(kept)
}

function keepDaily(memo: MemoState, date: IsoDate, rows: readonly NewStockDailyRow[], regime: string): void {
  for (const row of rows) memo.latestDaily.set(row.code, row as StockDailyRow)
  memo.dailyDays.set(date, new Map(rows.map((r) => [r.code, { verdict: r.verdict, logicState: r.logic_state }])))
  memo.regimes.set(date, regime)
  if (rows.length > 0)
    memo.storedMain.set(
      date,
      rows
        .filter((r) => r.verdict === 'main')
        .sort((a, b) => (a.card_rank ?? 0) - (b.card_rank ?? 0))
        .map((r) => r.code),
    )
}

function memoPlanInputs(memo: MemoState, inputs: PlanInputRepository): PlanInputRepository {
  const { built } = memo
  return {
    ...inputs,
    tierRows: async (date, codes) =>
      codes === undefined && memo.tierRowsDay?.date === date ? memo.tierRowsDay.rows : inputs.tierRows(date, codes),
    previousTierDate: async (date) => memo.previousTierDate.get(date) ?? inputs.previousTierDate(date),
    // the replay rebuilt every trading day from its first on, so the store's tier dates from there are its own
    // (a scan of the distinct dates since a long-absent code's last row grew with the history)
    tierDates: async (since, date) => {
      const first = built[0]
      if (first === undefined || date < first || date > built.at(-1)!) return inputs.tierDates(since, date)
      const before = since < first ? (await inputs.tierDates(since, first)).filter((d) => d < first) : []
      return [...before, ...built.filter((d) => d >= since && d <= date)]
    },
    storedMain: async (date) => memo.storedMain.get(date) ?? inputs.storedMain(date),
    // the days this replay published from the memo (their rows may still be being written), older ones from the store
    publishedMains: async (date, days) => {
      const lists: string[][] = []
      let cursor = date
      while (lists.length < days) {
        // a build asks before the memo knows its own date: the store's previous tier date is committed by then
        const before =
          memo.previousTierDate.get(cursor) ?? (cursor === date ? await inputs.previousTierDate(cursor) : undefined)
        const main = before === undefined ? undefined : memo.storedMain.get(before)
        if (before === undefined || main === undefined) break
        lists.push(main)
        cursor = before
      }
      return lists.length === days ? lists : [...lists, ...(await inputs.publishedMains(cursor, days - lists.length))]
    },
    // every replayed day's rows replaced the store's for that day, so a code's newest kept row is its newest
    // stored row before any later replayed date; codes without one are read from the store
    latestDailyBefore: async (date, codes) => {
      const kept = new Map<string, StockDailyRow>()
      const unknown: string[] = []
      for (const code of codes) {
        const row = memo.latestDaily.get(code)
        if (row !== undefined && row.trade_date < date) kept.set(code, row)
        else unknown.push(code)
      }
      const read = unknown.length === 0 ? [] : await inputs.latestDailyBefore(date, unknown)
      for (const row of read) kept.set(row.code, row)
      return codes.flatMap((code) => kept.get(code) ?? [])
    },
  }
}

function memoOutcomes(
  memo: MemoState,
  repo: OutcomesRepository,
  writeBehind?: (write: Promise<unknown>) => void,
): OutcomesRepository {
  const keepOutcomes = (first: Outcome, rows: readonly Outcome[]): void => {
    memo.outcomes.set(outcomeKey(first.trade_date, first.horizon), rows)
  }
  return {
    ...repo,
    tierCodes: async (date) => memo.tierDays.get(date)?.codes ?? repo.tierCodes(date),
    insert: async (rows) => {
      const first = rows[0]
      if (first !== undefined && writeBehind && memo.builtDates.has(first.trade_date)) {
        keepOutcomes(first, rows)
        const write = repo.insert(rows)
        memo.inFlight.add(write)
        void write.finally(() => memo.inFlight.delete(write)).catch(() => undefined)
        writeBehind(write)
        return rows.length
      }
      const inserted = await repo.insert(rows)
      // rows already stored were left as they were: only rows written now are known to be what the store holds
      if (first !== undefined && inserted === rows.length) keepOutcomes(first, rows)
      return inserted
    },
  }
}

function memoSignalIc(memo: MemoState, repo: SignalIcRepository): SignalIcRepository {
  return {
    ...repo,
    // plan days with outcomes (committed, or kept while they are written) and no ICs yet
    datesWithoutIc: async (horizon) =>
      mergeDates(
        await repo.datesWithoutIc(horizon),
        // only days this replay built: their builds have weights, as the store's query asks of a day
        keptDates(memo, horizon).filter((d) => memo.builtDates.has(d) && !memo.icWritten.has(outcomeKey(d, horizon))),
      ),
    insert: async (date, horizon, exitDate, definitions, ics) => {
      await repo.insert(date, horizon, exitDate, definitions, ics)
      memo.icWritten.add(outcomeKey(date, horizon))
    },
    dayOutcomes: async (date, horizon) => {
      const day = memo.tierDays.get(date)
      const kept = memo.outcomes.get(outcomeKey(date, horizon))
      if (day === undefined || kept === undefined) {
        await settled(memo)
        return repo.dayOutcomes(date, horizon)
      }
      return dayColumns(day, kept)
    },
  }
}

/**
 * A code's signals for the day's ICs: the build's own object when jsonb would store its values as they are (finite
 * numbers, no -0), else shaped as the store reads them. The ICs read values by name, never the keys' order.
 */
function signalsOf(day: TierDay, code: string): SignalValues | undefined {
  let kept = day.signals.get(code)
  if (kept === undefined) {
    const scored = day.scored.get(code)
    if (scored === undefined) return undefined
    kept = storedAsIs(scored.signals) ? scored.signals : (asJsonb(scored.signals) as SignalValues)
    day.signals.set(code, kept)
  }
  return kept
}

/** A plan day's tradable outcome rows with their signals, as columns in the rows' order (the store's too). */
function dayColumns(day: TierDay, kept: readonly Outcome[]): DayOutcomes {
  // the replay's builds score with this code's definitions
  const definitions = SIGNAL_DEFINITIONS
  let exitDate: IsoDate | null = null
  const { columns } = day
  if (columns === undefined) {
    const rows: { signals: SignalValues; ret: number }[] = []
    for (const o of kept) {
      if (!o.tradable || o.ret === null) continue
      const signals = signalsOf(day, o.code)
      if (signals === undefined) continue
      exitDate ??= o.exit_date
      rows.push({ signals, ret: o.ret })
    }
    return { exitDate, columns: outcomeColumns(rows), definitions }
  }
  const at: number[] = []
  const ret: number[] = []
  for (const o of kept) {
    if (!o.tradable || o.ret === null) continue
    const row = columns.rowOf.get(o.code)
    if (row === undefined) continue
    exitDate ??= o.exit_date
    at.push(row)
    ret.push(o.ret)
  }
  const signals = {} as Record<SignalName, Float64Array>
  for (const name of SIGNAL_NAMES) {
    const all = columns.values[name]
    const picked = new Float64Array(at.length)
    for (let k = 0; k < at.length; k++) picked[k] = all[at[k]!]!
    signals[name] = picked
  }
  return { exitDate, columns: { signals, ret: Float64Array.from(ret) }, definitions }
}

/** A plan day's outcome rows joined to their tier and daily rows, as `TrackRecordRepository.days` reads them. */
function evalDay(
  memo: MemoState,
  date: IsoDate,
  horizon: number,
  components: readonly string[],
): EvalDayWithEntry | undefined {
  const kept = memo.outcomes.get(outcomeKey(date, horizon))
  const tiers = memo.tierDays.get(date)
  const daily = memo.dailyDays.get(date)
  if (kept === undefined || tiers === undefined || daily === undefined || kept.length === 0) return undefined
  const byCode = isSortedByCode(kept)
    ? kept
    : [...kept].sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0))
  // columns the tier write does not fill (the old fixed components) are null in the store
  const sample = tiers.scored.values().next().value as Record<string, unknown> | undefined
  const filled = components.filter((c) => sample !== undefined && Object.hasOwn(sample, c))
  // one object for the rows' components when none is filled: read-only to the statistics
  const unfilled: Record<string, number | null> = Object.fromEntries(components.map((c) => [c, null]))
  const rows: EvalRow[] = []
  let entryDate: IsoDate | null = null
  let exitDate: IsoDate | null = null
  let regime: string | null = null
  for (const o of byCode) {
    entryDate = least(entryDate, o.entry_date)
    exitDate = least(exitDate, o.exit_date)
    regime = least(regime, o.regime)
    const tier = tiers.scored.get(o.code)
    if (tier === undefined) continue
    const published = daily.get(o.code)
    let values = unfilled
    if (filled.length > 0) {
      values = { ...unfilled }
      for (const c of filled) values[c] = (tier as unknown as Record<string, number | undefined>)[c] ?? null
    }
    rows.push({
      code: o.code,
      score: tier.score,
      components: values,
      decision: published?.verdict ?? null,
      logicState: published?.logicState ?? null,
      theme: tier.theme ?? null,
      tradable: o.reason === null,
      reason: o.reason,
      ret: o.ret,
    })
  }
  return { date, entryDate: entryDate!, exitDate: exitDate!, regime, benchRet: null, rows }
}

export type ReplayMemo = ReturnType<typeof createReplayMemo>

/** Whether every value is a finite number other than -0 (what JSON and jsonb keep unchanged). */
function storedAsIs(values: SignalValues): boolean {
  for (const key in values) {
    const v = (values as Record<string, unknown>)[key]
    if (typeof v !== 'number' || !Number.isFinite(v) || Object.is(v, -0)) return false
  }
  return true
}

/** Whether every value is NaN (no signal) or one jsonb stores as it is: finite, not -0. */
function columnsStoredAsIs({ values }: SignalColumns): boolean {
  for (const name of SIGNAL_NAMES)
    for (const v of values[name]) if (!Number.isNaN(v) && (!Number.isFinite(v) || Object.is(v, -0))) return false
  return true
}

/** Two ascending date lists as one, ascending, each date once. */
function mergeDates(stored: readonly IsoDate[], kept: readonly IsoDate[]): IsoDate[] {
  if (kept.length === 0) return [...stored]
  return [...new Set([...stored, ...kept])].sort()
}

/** The smaller of two values, a null standing for none (SQL's `min`). */
function least<T extends string>(min: T | null, value: T | null): T | null {
  return value !== null && (min === null || value < min) ? value : min
}

function isSortedByCode(rows: readonly { readonly code: string }[]): boolean {
  for (let i = 1; i < rows.length; i++) if (rows[i - 1]!.code > rows[i]!.code) return false
  return true
}
