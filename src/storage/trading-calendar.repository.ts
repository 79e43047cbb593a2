import type { Db } from './db.js'

/** Writes days of the trading calendar (open or closed) as given; a stored day is updated to the new answer. */
export async function writeTradingCalendar(
  db: Db,
  days: readonly { readonly date: string; readonly open: boolean }[],
): Promise<void> {
  const chunk = 1000
  for (let i = 0; i < days.length; i += chunk)
    await db
      .insertInto('trading_calendar')
      .values(days.slice(i, i + chunk).map((d) => ({ cal_date: d.date, is_open: d.open })))
      .onConflict((oc) => oc.column('cal_date').doUpdateSet((eb) => ({ is_open: eb.ref('excluded.is_open') })))
      .execute()
}
