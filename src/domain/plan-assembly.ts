import type {
  Candidate,
  Decision,
  FullPlan,
  FullRow,
  LogicTag,
  PlanBody,
  PlanRow,
  PlanSizes,
  Quote,
  ReasonCode,
  ScreenReason,
  SegmentPointed,
  TierRow,
  WatchItem,
} from './plan-types.js'
import { screenReason } from './screening.js'
import { WEAK_REGIME_RULE } from './tiers.js'
import { verdictText } from './verdict-text.js'

export const DEFAULT_SIZES: PlanSizes = Object.freeze({ top: 20, obs_top: 10, theme_cap: 5 })
const NO_QUOTE: Quote = { close: null, pct_chg: null, turnover_rate: null, amount: null }

export interface AssemblyInput {
  readonly date: string
  readonly planVersion: string
  readonly generatedAt: string
  /** Every tier row of the date. */
  readonly rows: readonly TierRow[]
  readonly held: ReadonlySet<string>
  readonly logic: ReadonlyMap<string, LogicTag>
  /** The day's quotes by code; rows without one show nulls. */
  readonly quotes?: ReadonlyMap<string, Quote>
  readonly prevDate: string | null
  readonly prevMain: readonly string[]
}

/** Screening, once per date: the `_full` from which every size cut is made. */
export function buildFullPlan(input: AssemblyInput): FullPlan {
  const screen_counts: Record<ScreenReason, number> = {
    held: 0,
    b_share: 0,
    suspended: 0,
    st: 0,
    new_listing: 0,
    illiquid: 0,
  }
  const tier_counts = { main: 0, observe: 0, reject: 0 }
  const reasons = new Map<string, ReasonCode>()
  const rows: FullRow[] = []
  let screened_reject = 0
  let weak_regime_demoted = 0
  const sorted = [...input.rows].sort((a, b) => a.rank - b.rank || (a.code < b.code ? -1 : 1))
  for (const row of sorted) {
    tier_counts[row.tier]++
    const dropped = screenReason(row, input.held)
    if (dropped) {
      screen_counts[dropped]++
      reasons.set(row.code, dropped)
    } else if (row.tier === 'reject') {
      screened_reject++
      reasons.set(row.code, 'tier_reject')
    } else {
      const logic = input.logic.get(row.code)
      if (row.tier_rule.startsWith(WEAK_REGIME_RULE)) weak_regime_demoted++
      rows.push({
        code: row.code,
        name: row.name,
        rank: row.rank,
        score: row.score,
        tier: row.tier,
        theme: row.theme,
        segment: row.segment,
        track: row.track,
        upside: row.upside,
        heat: row.heat,
        transmission: row.transmission,
        graph_evidence: row.graph_evidence,
        components: row.components,
        flags: row.flags,
        valuation_method: row.valuation_method,
        tier_rule: row.tier_rule,
        logic_state: logic?.state ?? null,
        logic_days: logic?.days ?? null,
        ...(input.quotes ? (input.quotes.get(row.code) ?? NO_QUOTE) : {}),
        logic_rule: logic?.rule ?? null,
      })
    }
  }
  const names = Object.fromEntries(sorted.map((r) => [r.code, r.name]))
  const prev_reasons: Record<string, ReasonCode> = {}
  for (const code of input.prevMain) {
    if (!rows.some((r) => r.code === code)) prev_reasons[code] = reasons.get(code) ?? 'not_in_tier_table'
  }
  return {
    date: input.date,
    plan_version: input.planVersion,
    generated_at: input.generatedAt,
    rows,
    tier_counts,
    screen_counts,
    screened_reject,
    weak_regime_demoted,
    prev_date: input.prevDate,
    prev_main: [...input.prevMain],
    prev_reasons,
    names: Object.fromEntries(input.prevMain.map((c) => [c, names[c] ?? ''])),
  }
}

export interface Selection {
  readonly main: FullRow[]
  readonly observe: FullRow[]
  /** Why each screened row outside main/observe was left out. */
  readonly left: Map<string, 'theme_cap' | 'beyond_top' | 'beyond_obs_top'>
  /** How many main rows each theme held when a row was capped. */
  readonly themeCounts: Map<string, number>
}

/**
 * Rank order; `main` fills to `top` skipping themes at `theme_cap`; `observe` to `obs_top`; no promotion. A row
 * without a theme belongs to no theme and is never capped: counted as one "no theme" group, a market without
 * themes (a bars-only bundle) would get `theme_cap` main names a day at most.
 */
export function selectRows(full: FullPlan, sizes: PlanSizes): Selection {
  const main: FullRow[] = []
  const observe: FullRow[] = []
  const left = new Map<string, 'theme_cap' | 'beyond_top' | 'beyond_obs_top'>()
  const themeCounts = new Map<string, number>()
  for (const row of full.rows) {
    if (row.tier === 'main') {
      const theme = row.theme
      if (main.length >= sizes.top) left.set(row.code, 'beyond_top')
      else if (theme !== null && (themeCounts.get(theme) ?? 0) >= sizes.theme_cap) left.set(row.code, 'theme_cap')
      else {
        main.push(row)
        if (theme !== null) themeCounts.set(theme, (themeCounts.get(theme) ?? 0) + 1)
      }
    } else if (observe.length < sizes.obs_top) observe.push(row)
    else left.set(row.code, 'beyond_obs_top')
  }
  return { main, observe, left, themeCounts }
}

export interface CodeVerdict {
  readonly decision: Decision
  readonly reason: ReasonCode | null
  readonly card_rank: number | null
}

/** The decision for one code given its tier row (or none), from the same selection the plan uses. */
export function decideCode(
  code: string,
  row: TierRow | undefined,
  held: ReadonlySet<string>,
  selection: Selection,
): CodeVerdict {
  if (!row) return { decision: 'absent', reason: 'not_in_tier_table', card_rank: null }
  const mainAt = selection.main.findIndex((r) => r.code === code)
  if (mainAt >= 0) return { decision: 'main', reason: null, card_rank: mainAt + 1 }
  const observeAt = selection.observe.findIndex((r) => r.code === code)
  if (observeAt >= 0) return { decision: 'observe', reason: null, card_rank: observeAt + 1 }
  const screened = screenReason(row, held)
  if (screened) return { decision: 'reject', reason: screened, card_rank: null }
  if (row.tier === 'reject') return { decision: 'reject', reason: 'tier_reject', card_rank: null }
  return { decision: 'reject', reason: selection.left.get(code) ?? 'beyond_top', card_rank: null }
}

function planRow(row: FullRow, decision: 'main' | 'observe', cardRank: number): PlanRow {
  const { logic_days } = row
  return {
    ...row,
    decision,
    card_rank: cardRank,
    verdict_text: verdictText({ decision, reason: null, card_rank: cardRank, row, logicDays: logic_days }),
  }
}

function segmentsPointed(rows: readonly FullRow[]): SegmentPointed[] {
  const bySegment = new Map<string, SegmentPointed>()
  for (const row of rows) {
    if (row.theme === null || row.segment === null) continue
    const key = `${row.theme}\u0000${row.segment}`
    const seg = bySegment.get(key) ?? { theme: row.theme, segment: row.segment, count: 0, codes: [], heat: row.heat }
    seg.codes.push(row.code)
    bySegment.set(key, { ...seg, count: seg.count + 1 })
  }
  return [...bySegment.values()].sort(
    (a, b) =>
      b.count - a.count ||
      (b.heat ?? 0) - (a.heat ?? 0) ||
      a.theme.localeCompare(b.theme) ||
      a.segment.localeCompare(b.segment),
  )
}

function watchList(full: FullPlan, selection: Selection, sizes: PlanSizes): WatchItem[] {
  const inMain = new Set(selection.main.map((r) => r.code))
  const inObserve = new Set(selection.observe.map((r) => r.code))
  const byCode = new Map(full.rows.map((r) => [r.code, r]))
  return full.prev_main
    .filter((code) => !inMain.has(code))
    .map((code) => {
      const row = byCode.get(code)
      const reason = inObserve.has(code)
        ? 'observe'
        : (selection.left.get(code) ?? full.prev_reasons[code] ?? 'not_in_tier_table')
      const name = row?.name ?? full.names[code] ?? ''
      const text = `left main since ${full.prev_date ?? 'the previous plan'}: ${watchReasonText(reason, row, sizes)}`
      return { code, name, reason, text }
    })
}

function watchReasonText(reason: ReasonCode | 'observe', row: FullRow | undefined, sizes: PlanSizes): string {
  switch (reason) {
    case 'observe':
      return `now in observe (score ${row?.score ?? '?'})`
    case 'theme_cap':
      return `theme ${row?.theme ?? '?'} is at its cap of ${sizes.theme_cap}`
    case 'beyond_top':
      return `rank #${row?.rank ?? '?'} is beyond top ${sizes.top}`
    case 'beyond_obs_top':
      return `observe rank beyond obs_top ${sizes.obs_top}`
    case 'tier_reject':
      return 'score fell into the reject tier'
    case 'not_in_tier_table':
      return 'not in the tier table'
    default:
      return `dropped at screening (${reason})`
  }
}

/** Why today's `main` is empty, in words (null when it is not): the build's rule, or what screened it out. */
function mainEmptyReason(full: FullPlan, main: readonly unknown[]): string | null {
  if (main.length > 0) return null
  const marker = 'main is empty: '
  const stated = full.rows.find((r) => r.tier_rule.includes(marker))
  if (stated) return stated.tier_rule.slice(stated.tier_rule.indexOf(marker) + marker.length)
  if (full.tier_counts.main > 0)
    return 'every main-tier name was dropped at screening (held, suspended, ST, new listing, illiquid)'
  return 'no eligible stock is expected to earn its round trip today, and nothing is held'
}

/** Cuts a plan for one set of sizes from the day's `_full`; live assembly and the snapshot path both end here. */
export function cutPlan(full: FullPlan, sizes: PlanSizes): PlanBody {
  const selection = selectRows(full, sizes)
  const main = selection.main.map((r, i) => planRow(r, 'main', i + 1))
  const observe = selection.observe.map((r, i) => planRow(r, 'observe', i + 1))
  const left = { theme_cap: 0, beyond_top: 0, beyond_obs_top: 0 }
  for (const reason of selection.left.values()) left[reason]++
  const total = full.tier_counts.main + full.tier_counts.observe + full.tier_counts.reject
  const candidates: Candidate[] = full.rows.map(({ code, name, rank, score, tier, theme }) => ({
    code,
    name,
    rank,
    score,
    tier,
    theme,
  }))
  return {
    date: full.date,
    main,
    observe,
    generated_at: full.generated_at,
    plan_version: full.plan_version,
    card_counts: {
      main: main.length,
      observe: observe.length,
      reject: total - main.length - observe.length,
      ...full.screen_counts,
      ...left,
      tier_reject: full.screened_reject,
      weak_regime_demoted: full.weak_regime_demoted ?? 0,
    },
    candidates,
    watch: watchList(full, selection, sizes),
    segments_pointed: segmentsPointed([...selection.main, ...selection.observe]),
    main_empty: mainEmptyReason(full, main),
  }
}
