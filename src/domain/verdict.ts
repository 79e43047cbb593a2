/**
 * One entry of `GET /plan/verdict` (DESIGN §8 "Verdict"): the decision comes from `decideCode` over the same
 * default-size selection `GET /plan` cuts, and the line from `verdictText`, so a verdict never disagrees with
 * the plan and the CLI prints the same words.
 */

import { DEFAULT_SIZES, decideCode, type Selection } from './plan-assembly.js'
import type { EvidenceEdge, ReasonCode, ScoreComponents, TierRow, TradeFlag } from './plan-types.js'
import { verdictText } from './verdict-text.js'

export interface VerdictEntry {
  readonly input: string
  readonly code: string
  readonly name: string | null
  readonly decision: 'main' | 'observe' | 'reject' | 'absent'
  readonly reason: ReasonCode | null
  readonly verdict_text: string
  readonly score: number | null
  readonly rank: number | null
  readonly tier: 'main' | 'observe' | 'reject' | null
  readonly upside: number | null
  readonly heat: number | null
  readonly transmission: number | null
  readonly track: string | null
  readonly graph_evidence: EvidenceEdge[] | null
  readonly card_rank: number | null
  /** Points of each score component (they sum to `score`). */
  readonly components: ScoreComponents | null
  readonly flags: TradeFlag[]
  readonly valuation_method: string | null
  readonly tier_rule: string | null
}

/** A stored tier row that cannot be explained (corrupt or hand-edited data); one code's problem, not the batch's. */
export class TierDataError extends Error {
  override name = 'TierDataError'
}

/** Throws TierDataError when the row's facts cannot support a verdict. */
export function checkTierRow(row: TierRow, date: string): void {
  const where = `tier row of ${row.code} on ${date}`
  if (!Number.isFinite(row.score)) throw new TierDataError(`${where} has a non-finite score (${row.score})`)
  if (!Number.isInteger(row.rank) || row.rank < 1) throw new TierDataError(`${where} has an invalid rank (${row.rank})`)
  if (!['main', 'observe', 'reject'].includes(row.tier))
    throw new TierDataError(`${where} has an unknown tier "${row.tier}"`)
  if (!Array.isArray(row.graph_evidence)) throw new TierDataError(`${where} has graph_evidence that is not a list`)
}

export interface VerdictContext {
  readonly date: string
  /** The date's tier rows of the requested codes. */
  readonly rows: ReadonlyMap<string, TierRow>
  /** Security names, for codes outside the tier table. */
  readonly names: ReadonlyMap<string, string>
  readonly held: ReadonlySet<string>
  /** `selectRows(full, DEFAULT_SIZES)` of the date's `_full`: the cut `GET /plan` serves by default. */
  readonly selection: Selection
}

/** The verdict of one normalised code; throws (TierDataError or whatever the text fails on) for bad data. */
export function verdictFor(input: string, code: string, ctx: VerdictContext): VerdictEntry {
  const row = ctx.rows.get(code)
  if (row) checkTierRow(row, ctx.date)
  const { decision, reason, card_rank } = decideCode(code, row, ctx.held, ctx.selection)
  // main/observe: the selected row itself (it carries the logic tag), so the text equals the plan row's
  const selected =
    decision === 'main'
      ? ctx.selection.main[(card_rank ?? 0) - 1]
      : decision === 'observe'
        ? ctx.selection.observe[(card_rank ?? 0) - 1]
        : undefined
  const text = verdictText({
    decision,
    reason: decision === 'reject' ? reason : null,
    card_rank,
    row: selected ?? row,
    logicDays: selected?.logic_days ?? null,
    date: ctx.date,
    sizes: DEFAULT_SIZES,
  })
  return {
    input,
    code,
    name: row?.name || ctx.names.get(code) || null,
    decision,
    reason,
    verdict_text: text,
    score: row?.score ?? null,
    rank: row?.rank ?? null,
    tier: row?.tier ?? null,
    upside: row?.upside ?? null,
    heat: row?.heat ?? null,
    transmission: row?.transmission ?? null,
    track: row?.track ?? null,
    graph_evidence: row ? [...row.graph_evidence] : null,
    card_rank,
    components: row?.components ?? null,
    flags: row ? [...row.flags] : [],
    valuation_method: row?.valuation_method ?? null,
    tier_rule: row?.tier_rule ?? null,
  }
}
