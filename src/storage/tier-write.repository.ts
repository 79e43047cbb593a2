import type pg from 'pg'
import type { ScoredStock } from '../domain/scoring.js'
import type { SignalWeights } from '../domain/signal-weights.js'
import type { ColumnType } from './array-insert.js'
import { copyRows, inTransaction } from './copy-rows.js'
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
  /** The fingerprint of the signal definitions the build scored with (`SIGNAL_DEFINITIONS`). */
  readonly signal_definitions: string
}

const TIER_COLUMNS: ReadonlyArray<readonly [string, ColumnType]> = [
  ['trade_date', 'date'],
  ['code', 'text'],
  ['score', 'float8'],
  ['rank', 'int4'],
  ['tier', 'text'],
  ['theme', 'text'],
  ['segment', 'text'],
  ['upside', 'float8'],
  ['heat', 'float8'],
  ['transmission', 'float8'],
  ['track', 'text'],
  ['graph_evidence', 'jsonb'],
  ['build_id', 'text'],
  ['name', 'text'],
  ['close', 'float8'],
  ['is_suspended', 'bool'],
  ['is_st', 'bool'],
  ['listed_days', 'int4'],
  ['amount_ma20', 'float8'],
  ['invalidated', 'bool'],
  ['signals', 'jsonb'],
  ['points', 'jsonb'],
  ['score_pct', 'float8'],
  ['tier_rule', 'text'],
  ['flags', 'jsonb'],
  ['valuation_method', 'text'],
  ['invalidation', 'text'],
]

/** Replaces the date's tier rows and records the build, in one transaction: readers see old or new, never half. */
export async function replaceTierScores(
  pool: pg.Pool,
  record: BuildRecord,
  rows: readonly ScoredStock[],
): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query('delete from tier_scores where trade_date = $1', [record.trade_date])
    // the day's signal ICs were measured on the rows replaced here: the next outcomes step measures them again
    await client.query('delete from signal_ic where trade_date = $1', [record.trade_date])
    await copyRows(
      client,
      'tier_scores',
      TIER_COLUMNS,
      rows.map((r) => ({ ...r, trade_date: record.trade_date, build_id: record.build_id, points: r.components })),
    )
    await client.query(
      `insert into builds (build_id, trade_date, started_at, finished_at, code_version, stale, counts, weights,
        main_empty, signal_definitions) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        record.build_id,
        record.trade_date,
        record.started_at,
        record.finished_at,
        record.code_version,
        record.stale,
        JSON.stringify(record.counts),
        JSON.stringify(record.weights),
        record.main_empty,
        record.signal_definitions,
      ],
    )
  })
}
