/**
 * The trading days a tushare sync imported incomplete (sync_incomplete_days): which interface is still late for
 * which day and by how many codes. The sync reads them to ask again, and `/metrics` counts them.
 */
import type pg from 'pg'

/** A day's late interfaces with the codes each still lacks. */
export interface IncompleteDay {
  readonly day: string
  readonly missing: Readonly<Record<string, number>>
}

export interface SyncGapsRepository {
  /** Every incomplete day, oldest first. */
  list(): Promise<IncompleteDay[]>
  /** The day's state after a sync: the late interfaces with counts (none: the day is whole). */
  record(day: string, missing: Readonly<Record<string, number>>): Promise<void>
  /** How many trading days are incomplete. */
  /** Bars stored on `day` that are not suspension bars: what the next day's daily is checked against. */
  tradedBars(day: string): Promise<number>
}

export function createSyncGapsRepository(pool: pg.Pool): SyncGapsRepository {
  return {
    async list() {
      const { rows } = await pool.query<{ day: string; interface: string; missing: number }>(
        `select trade_date::text as day, interface, missing from sync_incomplete_days order by trade_date, interface`,
      )
      const days = new Map<string, Record<string, number>>()
      for (const row of rows) {
        const entry = days.get(row.day) ?? {}
        entry[row.interface] = row.missing
        days.set(row.day, entry)
      }
      return [...days].map(([day, missing]) => ({ day, missing }))
    },
    async record(day, missing) {
      const late = Object.entries(missing).filter(([, n]) => n > 0)
      const client = await pool.connect()
      try {
        await client.query('begin')
        await client.query(`delete from sync_incomplete_days where trade_date = $1 and not (interface = any($2))`, [
          day,
          late.map(([api]) => api),
        ])
        for (const [api, n] of late) {
          await client.query(
            `insert into sync_incomplete_days (trade_date, interface, missing) values ($1, $2, $3)
             on conflict (trade_date, interface) do update set missing = excluded.missing, last_checked = now()`,
            [day, api, n],
          )
        }
        await client.query('commit')
      } catch (err) {
        await client.query('rollback').catch(() => undefined)
        throw err
      } finally {
        client.release()
      }
    },
    async tradedBars(day) {
      const { rows } = await pool.query<{ n: number }>(
        `select count(*)::int as n from daily_bars where trade_date = $1 and not is_suspended`,
        [day],
      )
      return rows[0]?.n ?? 0
    },
  }
}
