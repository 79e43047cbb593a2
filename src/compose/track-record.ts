import { createTrackRecordService, type TrackRecordService } from '../services/track-record.service.js'
import { createTrackRecordDays, type TrackRecordDays } from '../services/track-record-days.js'
import type { Db } from '../storage/db.js'
import { createPlanDayStatsRepository } from '../storage/plan-day-stats.repository.js'
import type { ReplayMemo } from '../storage/replay-memo.js'
import { createTrackRecordRepository } from '../storage/track-record.repository.js'

/** The track record's wiring in one place: its rows, its per-plan-day statistics and the report over them. */
export interface TrackRecordWiring {
  readonly service: TrackRecordService
  /** The per-plan-day statistics the outcomes step writes; a replay's read what its memo still holds. */
  days(memo?: ReplayMemo): TrackRecordDays
}

export function createTrackRecordWiring(db: Db): TrackRecordWiring {
  const records = createTrackRecordRepository(db)
  const stats = createPlanDayStatsRepository(db)
  const days = createTrackRecordDays({ records, stats })
  return {
    service: createTrackRecordService({ repository: records, days }),
    days: (memo) =>
      memo ? createTrackRecordDays({ records: memo.trackRecords(records), stats: memo.dayStats(stats) }) : days,
  }
}
