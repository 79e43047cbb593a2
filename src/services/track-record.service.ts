import type { BookReport } from '../domain/book-report.js'
import { HORIZONS } from '../domain/outcomes.js'
import { assembleTrackRecord, type CostModel, SCORE_COMPONENTS, type TrackRecord } from '../domain/track-record.js'
import { DomainError } from '../errors.js'
import type { TrackRecordRepository, WeightsDay } from '../storage/track-record.repository.js'
import type { BookService } from './book.service.js'
import type { TrackRecordDays } from './track-record-days.js'

export interface TrackRecordQuery {
  readonly from?: string
  readonly to?: string
  readonly horizon: number
  readonly benchmark: string
}

export interface TrackRecordReport extends TrackRecord {
  readonly benchmark: string
  /** The walk-forward signal weights each build in the range used (PLAN_VERSION 3), oldest first. */
  readonly weights: WeightsDay[]
  /** The main book as a PM holds it (issue 38): the headline; the cohort figures above are signal research. */
  readonly book: BookReport
}

/** A query the store cannot answer as asked (unknown horizon or benchmark, reversed dates): a 422, not a 500. */
export class TrackRecordQueryError extends DomainError {
  override name = 'TrackRecordQueryError'
  constructor(message: string) {
    super('QueryInvalid', message)
  }
}

export function createTrackRecordService(deps: {
  repository: TrackRecordRepository
  days: TrackRecordDays
  book: BookService
  costs?: CostModel
}) {
  return {
    async evaluate(query: TrackRecordQuery): Promise<TrackRecordReport> {
      if (!(HORIZONS as readonly number[]).includes(query.horizon))
        throw new TrackRecordQueryError(
          `horizon must be one of ${HORIZONS.join(', ')} trading days, got ${query.horizon}`,
        )
      if (query.from && query.to && query.from > query.to)
        throw new TrackRecordQueryError(`from (${query.from}) is after to (${query.to})`)
      if (!(await deps.repository.hasIndex(query.benchmark)))
        throw new TrackRecordQueryError(
          `no index bars for benchmark ${query.benchmark}: import it in index_bars.csv or choose another`,
        )
      const [signalIcs, weights, days, book] = await Promise.all([
        deps.repository.signalIcs(query.horizon, query.from, query.to),
        deps.repository.weights(query.from, query.to),
        deps.days.days(query.horizon, query.benchmark, query.from, query.to),
        deps.book.report(query),
      ])
      // signal plans have their per-signal ICs stored with their outcomes; older plans have points columns
      const record = assembleTrackRecord(days, {
        horizon: query.horizon,
        costs: deps.costs,
        components: signalIcs.size > 0 ? [] : SCORE_COMPONENTS,
        precomputedIcs: signalIcs,
      })
      return { benchmark: query.benchmark, ...record, weights, book }
    },
  }
}

export type TrackRecordService = ReturnType<typeof createTrackRecordService>
