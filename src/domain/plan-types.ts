import type { Tier } from './build-rules.js'

export interface EvidenceEdge {
  readonly theme: string
  readonly segment: string
  readonly weight: number
  readonly evidence: string
  readonly track: string
}

/**
 * Points each part of the score contributed; they sum to the score. PLAN_VERSION 3: one entry per signal the stock
 * had that day (`signals.ts`); PLAN_VERSION 2 rows carry its six fixed components (momentum, trend, heat, upside,
 * liquidity, quality).
 */
export type ScoreComponents = Readonly<Record<string, number>>

/** Why a row might not be tradable at the open: closed limit-up on T, a one-word board, ST, a new listing. */
export type TradeFlag = 'limit_up_close' | 'one_word_board' | 'st' | 'new_listing'

/** One row of the tier score table with the screening facts the build captured. */
export interface TierRow {
  readonly code: string
  readonly name: string
  readonly score: number
  readonly rank: number
  readonly tier: Tier
  readonly theme: string | null
  readonly segment: string | null
  readonly track: string | null
  readonly upside: number | null
  readonly heat: number | null
  readonly transmission: number | null
  readonly graph_evidence: readonly EvidenceEdge[]
  readonly close: number | null
  readonly is_suspended: boolean
  readonly is_st: boolean
  readonly listed_days: number
  readonly amount_ma20: number
  readonly invalidated: boolean
  readonly components: ScoreComponents
  /** Percentile (0..100) of the score in the day's cross-section; null for rows from before PLAN_VERSION 2. */
  readonly score_pct: number | null
  /** Why the row has its tier, in words. */
  readonly tier_rule: string
  readonly flags: readonly TradeFlag[]
  readonly valuation_method: string | null
  /** The hard invalidation that fired, in words, else null. */
  readonly invalidation: string | null
}

export interface LogicTag {
  readonly state: string
  readonly days: number
  /** The rule that set the state, in words. */
  readonly rule: string
}

export interface PlanSizes {
  readonly top: number
  readonly obs_top: number
  readonly theme_cap: number
}

export type ScreenReason = 'held' | 'b_share' | 'suspended' | 'st' | 'new_listing' | 'illiquid'
export type SelectionReason = 'theme_cap' | 'beyond_top' | 'beyond_obs_top' | 'tier_reject'
export type ReasonCode = ScreenReason | SelectionReason | 'not_in_tier_table'
export type Decision = 'main' | 'observe' | 'reject' | 'absent'

/** The day's trading of one code, for the reader of the plan: close, change vs the previous close, turnover. */
export interface Quote {
  readonly close: number | null
  /** close / pre_close - 1, a fraction. */
  readonly pct_chg: number | null
  /** Shares traded as a fraction of the float (0.05 = 5%). */
  readonly turnover_rate: number | null
  /** Traded value in yuan. */
  readonly amount: number | null
}

/** A screened main- or observe-tier row, as kept in the snapshot's `_full`. */
export interface FullRow
  extends Pick<
    TierRow,
    | 'code'
    | 'name'
    | 'rank'
    | 'score'
    | 'tier'
    | 'theme'
    | 'segment'
    | 'track'
    | 'upside'
    | 'heat'
    | 'transmission'
    | 'graph_evidence'
    | 'components'
    | 'flags'
    | 'valuation_method'
    | 'tier_rule'
  > {
  readonly logic_state: string | null
  readonly logic_days: number | null
  /** The day's quote fields (absent in snapshots written before they were added). */
  readonly close?: number | null
  readonly pct_chg?: number | null
  readonly turnover_rate?: number | null
  readonly amount?: number | null
  readonly logic_rule: string | null
}

/** Everything any `top`/`obs_top`/`theme_cap` cut needs: the snapshot's `_full`. */
export interface FullPlan {
  readonly date: string
  readonly plan_version: string
  readonly generated_at: string
  /** Screened main- and observe-tier rows in rank order. */
  readonly rows: readonly FullRow[]
  readonly tier_counts: Readonly<Record<Tier, number>>
  readonly screen_counts: Readonly<Record<ScreenReason, number>>
  /** Reject-tier rows that passed screening. */
  readonly screened_reject: number
  /** Main-tier candidates the build moved to observe because the regime was weak (0 on other days). */
  readonly weak_regime_demoted: number
  /** The previous data date's main list, and today's reason for each of them outside today's rows. */
  readonly prev_date: string | null
  readonly prev_main: readonly string[]
  readonly prev_reasons: Readonly<Record<string, ReasonCode>>
  readonly names: Readonly<Record<string, string>>
}

export interface PlanRow extends FullRow {
  readonly decision: 'main' | 'observe'
  readonly card_rank: number
  readonly verdict_text: string
}

export interface WatchItem {
  readonly code: string
  readonly name: string
  readonly reason: ReasonCode | 'observe'
  readonly text: string
}

export interface SegmentPointed {
  readonly theme: string
  readonly segment: string
  readonly count: number
  readonly codes: string[]
  readonly heat: number | null
}

export interface Candidate {
  readonly code: string
  readonly name: string
  readonly rank: number
  readonly score: number
  readonly tier: Tier
  readonly theme: string | null
}

/** The plan body for one set of sizes, without the per-request keys (snapshot, regime, market, plan_source). */
export interface PlanBody {
  readonly date: string
  readonly main: PlanRow[]
  readonly observe: PlanRow[]
  readonly generated_at: string
  readonly plan_version: string
  readonly card_counts: Record<string, number>
  readonly candidates: Candidate[]
  readonly watch: WatchItem[]
  readonly segments_pointed: SegmentPointed[]
  /** Why `main` is empty today, in words; null when it is not. */
  readonly main_empty: string | null
}
