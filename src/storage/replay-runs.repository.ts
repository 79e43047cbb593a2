import type { Db } from './db.js'
import type { IsoDate } from './schema.js'

/** How far each `replay --from --to` got, so a killed replay resumes after its last finished date. */
export function createReplayRunsRepository(db: Db) {
  return {
    async doneThrough(from: IsoDate, to: IsoDate): Promise<IsoDate | null> {
      const row = await db
        .selectFrom('replay_runs')
        .select('done_through')
        .where('from_date', '=', from)
        .where('to_date', '=', to)
        .executeTakeFirst()
      return row?.done_through ?? null
    },

    async markDone(from: IsoDate, to: IsoDate, date: IsoDate | null): Promise<void> {
      await db
        .insertInto('replay_runs')
        .values({ from_date: from, to_date: to, done_through: date, updated_at: new Date() })
        .onConflict((oc) =>
          oc.columns(['from_date', 'to_date']).doUpdateSet({ done_through: date, updated_at: new Date() }),
        )
        .execute()
    },
  }
}

export type ReplayRunsRepository = ReturnType<typeof createReplayRunsRepository>
