import type { Kysely, Migration, MigrationProvider, MigrationResultSet } from 'kysely'
import { Migrator } from 'kysely'
import * as initial from './migrations/0001-initial.js'
import * as planWrittenNotify from './migrations/0002-plan-written-notify.js'
import * as planOutcomes from './migrations/0010-plan-outcomes.js'
import * as scoreComponents from './migrations/0011-score-components.js'
import * as pointInTime from './migrations/0012-point-in-time.js'
import * as signalWeights from './migrations/0013-signal-weights.js'
import * as conceptBoards from './migrations/0014-concept-boards.js'
import * as planDayStats from './migrations/0015-plan-day-stats.js'
import * as dateSets from './migrations/0016-date-sets.js'
import * as signalDefinitions from './migrations/0017-signal-definitions.js'
import * as syncIncompleteDays from './migrations/0018-sync-incomplete-days.js'
import * as planDayBook from './migrations/0019-plan-day-book.js'
import * as bookFactsFollowBars from './migrations/0021-book-facts-follow-bars.js'
import * as bookUniverse from './migrations/0022-book-universe.js'
import * as mainRowsIndex from './migrations/0023-main-rows-index.js'

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and typed against no schema (kysely's advice)
type AnyDb = Kysely<any>

const MIGRATIONS: Record<string, Migration> = {
  '0001-initial': initial,
  '0002-plan-written-notify': planWrittenNotify,
  '0010-plan-outcomes': planOutcomes,
  '0011-score-components': scoreComponents,
  '0012-point-in-time': pointInTime,
  '0013-signal-weights': signalWeights,
  '0014-concept-boards': conceptBoards,
  '0015-plan-day-stats': planDayStats,
  '0016-date-sets': dateSets,
  '0017-signal-definitions': signalDefinitions,
  '0018-sync-incomplete-days': syncIncompleteDays,
  '0019-plan-day-book': planDayBook,
  '0021-book-facts-follow-bars': bookFactsFollowBars,
  '0022-book-universe': bookUniverse,
  '0023-main-rows-index': mainRowsIndex,
}

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS }

export function createMigrator(db: AnyDb): Migrator {
  return new Migrator({ db, provider })
}

/** Applies every pending migration; throws with the failing migration's name and error. */
export async function migrateToLatest(db: AnyDb): Promise<string[]> {
  const { error, results }: MigrationResultSet = await createMigrator(db).migrateToLatest()
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown'
    throw new Error(`migration ${failed} failed: ${String(error instanceof Error ? error.message : error)}`)
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}

export interface MigrationStatus {
  readonly name: string
  readonly executedAt: Date | undefined
}

export async function migrationStatus(db: AnyDb): Promise<MigrationStatus[]> {
  const migrations = await createMigrator(db).getMigrations()
  return migrations.map((m) => ({ name: m.name, executedAt: m.executedAt }))
}
