import type { ScoredStock } from '../domain/scoring.js'
import type { SignalWeights } from '../domain/signal-weights.js'
import type { Db } from './db.js'
import type { IsoDate } from './schema.js'

export interface BuildRecord {
  readonly build_id: string
  readonly trade_date: IsoDate
  readonly started_at: Date
  readonly finished_at: Date
  readonly code_version: string
  readonly stale: string
  readonly counts: Record<string, number>
  readonly weights: SignalWeights
  /** Why `main` had to stay empty, in words; null when it did not. */
  readonly main_empty: string | null
}

const BATCH = 1000

/** Replaces the date's tier rows and records the build, in one transaction: readers see old or new, never half. */
export async function replaceTierScores(db: Db, record: BuildRecord, rows: readonly ScoredStock[]): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('tier_scores').where('trade_date', '=', record.trade_date).execute()
    for (let i = 0; i < rows.length; i += BATCH) {
      await trx
        .insertInto('tier_scores')
        .values(
          rows.slice(i, i + BATCH).map((r) => ({
            trade_date: record.trade_date,
            code: r.code,
            score: r.score,
            rank: r.rank,
            tier: r.tier,
            theme: r.theme,
            segment: r.segment,
            upside: r.upside,
            heat: r.heat,
            transmission: r.transmission,
            track: r.track,
            graph_evidence: JSON.stringify(r.graph_evidence),
            build_id: record.build_id,
            name: r.name,
            close: r.close,
            is_suspended: r.is_suspended,
            is_st: r.is_st,
            listed_days: r.listed_days,
            amount_ma20: r.amount_ma20,
            invalidated: r.invalidated,
            signals: JSON.stringify(r.signals),
            points: JSON.stringify(r.components),
            score_pct: r.score_pct,
            tier_rule: r.tier_rule,
            flags: JSON.stringify(r.flags),
            valuation_method: r.valuation_method,
            invalidation: r.invalidation,
          })),
        )
        .execute()
    }
    await trx
      .insertInto('builds')
      .values({ ...record, counts: JSON.stringify(record.counts), weights: JSON.stringify(record.weights) })
      .execute()
  })
}
