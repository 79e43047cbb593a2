import type { StoredMemory, TierDay } from '../domain/logic-replay.js'
import type { LogicMemory } from '../domain/logic-state.js'
import { logicTags, stepAll } from '../domain/logic-tags.js'
import { buildFullPlan, cutPlan, DEFAULT_SIZES } from '../domain/plan-assembly.js'
import type { FullPlan, Quote, TierRow } from '../domain/plan-types.js'
import { screenReason } from '../domain/screening.js'
import { type PlanInputRepository, toLogicMemory } from '../storage/plan-input.repository.js'

export interface AssemblerDeps {
  readonly inputs: PlanInputRepository
  readonly planVersion: string
  readonly now: () => Date
}

export interface DayInputs {
  readonly date: string
  readonly rows: TierRow[]
  readonly held: Set<string>
  readonly prevDate: string | null
  readonly prevMain: string[]
  /** Today's logic memory, for every tier code (`all`) or the screened main/observe codes only. */
  readonly memories: Map<string, LogicMemory>
  /** The day's quotes of the screened main/observe codes (what the plan rows show). */
  readonly quotes: Map<string, Quote>
}

/** Live plan assembly: reads the day's inputs and screens them into the `_full` every cut comes from. */
export function createPlanAssembler(deps: AssemblerDeps) {
  const { inputs } = deps

  async function previousMain(prevDate: string | undefined): Promise<string[]> {
    if (!prevDate) return []
    const stored = await inputs.storedMain(prevDate)
    if (stored) return stored
    // the plan job never ran for that day: assemble its main list the same way
    const [rows, held] = await Promise.all([inputs.tierRows(prevDate), inputs.heldCodes(prevDate)])
    const full = buildFullPlan({
      date: prevDate,
      planVersion: deps.planVersion,
      generatedAt: '',
      rows,
      held,
      logic: new Map(),
      prevDate: null,
      prevMain: [],
    })
    return cutPlan(full, DEFAULT_SIZES).main.map((r) => r.code)
  }

  /** The tier dates (and the codes' rows on them) between codes' older stored memories and `date`. */
  async function gapDays(date: string, prevDate: string | undefined, seeds: ReadonlyMap<string, StoredMemory>) {
    const history = new Map<string, Map<string, TierDay>>()
    const behind = [...seeds].filter(([, s]) => prevDate !== undefined && s.date < prevDate)
    if (behind.length === 0) return { between: [] as string[], history }
    const oldest = behind.reduce((min, [, s]) => (s.date < min ? s.date : min), date)
    const between = (await inputs.tierDates(oldest, date)).filter((d) => d > oldest && d < date)
    if (between.length === 0) return { between, history }
    const rows = await inputs.tierHistory(
      behind.map(([code]) => code),
      between[0]!,
      between.at(-1)!,
    )
    for (const row of rows) {
      const days = history.get(row.code) ?? new Map<string, TierDay>()
      days.set(row.trade_date, row)
      history.set(row.code, days)
    }
    return { between, history }
  }

  async function loadDay(date: string, scope: 'screened' | 'all'): Promise<DayInputs | undefined> {
    const [rows, held, prevDate] = await Promise.all([
      inputs.tierRows(date),
      inputs.heldCodes(date),
      inputs.previousTierDate(date),
    ])
    if (rows.length === 0) return undefined
    const logicRows = scope === 'all' ? rows : rows.filter((r) => r.tier !== 'reject' && !screenReason(r, held))
    const shown = rows.filter((r) => r.tier !== 'reject' && !screenReason(r, held)).map((r) => r.code)
    const [prevMain, stored, quotes] = await Promise.all([
      previousMain(prevDate),
      inputs.latestDailyBefore(
        date,
        logicRows.map((r) => r.code),
      ),
      inputs.quotes(date, shown),
    ])
    const seeds = new Map<string, StoredMemory>(
      stored.map((r) => [r.code, { date: r.trade_date, memory: toLogicMemory(r) }]),
    )
    const { between, history } = await gapDays(date, prevDate, seeds)
    const memories = stepAll(date, logicRows, seeds, between, history)
    return { date, rows, held, prevDate: prevDate ?? null, prevMain, memories, quotes }
  }

  function toFull(day: DayInputs, generatedAt: string): FullPlan {
    return buildFullPlan({
      date: day.date,
      planVersion: deps.planVersion,
      generatedAt,
      rows: day.rows,
      held: day.held,
      logic: logicTags(day.memories),
      quotes: day.quotes,
      prevDate: day.prevDate,
      prevMain: day.prevMain,
    })
  }

  return {
    loadDay,
    toFull,
    /** The `_full` of a date assembled on the spot, or undefined when the date has no tier rows. */
    async assembleFull(date: string): Promise<FullPlan | undefined> {
      const day = await loadDay(date, 'screened')
      return day ? toFull(day, deps.now().toISOString()) : undefined
    },
  }
}

export type PlanAssembler = ReturnType<typeof createPlanAssembler>
