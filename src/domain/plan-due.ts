/**
 * Which plan must be published by now, from the trading calendar: the rule behind `stockplan_plan_expected_date_*`,
 * so that an alert compares two dates and never needs to know weekends or holidays. The market's clock is China
 * Standard Time (UTC+8, no DST).
 */

const DAY_MS = 86_400_000
const CST_OFFSET_MS = 8 * 3_600_000
/** A session's plan is due before the PMS pulls it: 08:45 in Shanghai on the session's day. */
export const PLAN_DUE_MINUTE_CST = 8 * 60 + 45
/** The session closes at 15:00 in Shanghai; the chain for that day's data may start after it. */
export const SESSION_CLOSE_MINUTE_CST = 15 * 60
/** The longest run of closed days looked through (the Spring Festival and National Day weeks are 9 or 10). */
const MAX_CLOSED_RUN = 31

export interface CalendarWindow {
  /** Open days stored for the window asked (ascending or not). */
  readonly open: ReadonlySet<string>
  /** The first and last day the stored calendar covers; outside it nothing is known, not even a weekday. */
  readonly first: string | undefined
  readonly last: string | undefined
}

export interface PlanDue {
  /**
   * The data date of the plan the latest session whose 08:45 has passed needed; undefined when the stored calendar
   * does not cover the days that decide it (the service does not guess past its calendar).
   */
  readonly expectedDate: string | undefined
  /** When the latest session that has closed closed (ms since the epoch); undefined when not known. */
  readonly lastCloseAtMs: number | undefined
  /** The data date of the plan the next session needs: the latest closed session's, built after its close. */
  readonly nextDate: string | undefined
}

export const isoDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10)
const dayMs = (date: string): number => Date.parse(`${date}T00:00:00Z`)

/** Whether the market opens on `date` by the stored calendar; undefined outside the days it covers. */
export function isOpenDay(calendar: CalendarWindow, date: string): boolean | undefined {
  if (calendar.first === undefined || calendar.last === undefined || date < calendar.first || date > calendar.last)
    return undefined
  return calendar.open.has(date)
}

/**
 * The latest open day on or before today whose moment `minuteCst` (minutes after midnight CST) is at or before
 * `nowMs`; undefined when a day the walk back needs is outside the calendar.
 */
function latestOpenDayAt(calendar: CalendarWindow, nowMs: number, minuteCst: number): string | undefined {
  let day = dayMs(isoDay(nowMs + CST_OFFSET_MS))
  for (let i = 0; i <= MAX_CLOSED_RUN + 1; i++, day -= DAY_MS) {
    const date = isoDay(day)
    const open = isOpenDay(calendar, date)
    if (open === undefined) return undefined
    if (open && day - CST_OFFSET_MS + minuteCst * 60_000 <= nowMs) return date
  }
  return undefined
}

function previousOpenDay(calendar: CalendarWindow, date: string): string | undefined {
  let day = dayMs(date) - DAY_MS
  for (let i = 0; i <= MAX_CLOSED_RUN; i++, day -= DAY_MS) {
    const open = isOpenDay(calendar, isoDay(day))
    if (open === undefined) return undefined
    if (open) return isoDay(day)
  }
  return undefined
}

/**
 * The plan expected now: the session whose 08:45 passed last needed the plan of the open day before it. The
 * expected date therefore moves only at 08:45 on a trading day, and stays put over weekends and holidays.
 */
export function planDue(calendar: CalendarWindow, nowMs: number): PlanDue {
  const session = latestOpenDayAt(calendar, nowMs, PLAN_DUE_MINUTE_CST)
  const closed = latestOpenDayAt(calendar, nowMs, SESSION_CLOSE_MINUTE_CST)
  return {
    expectedDate: session === undefined ? undefined : previousOpenDay(calendar, session),
    lastCloseAtMs: closed === undefined ? undefined : dayMs(closed) - CST_OFFSET_MS + SESSION_CLOSE_MINUTE_CST * 60_000,
    nextDate: closed,
  }
}

/** Today's date in Shanghai: the sessions after it are the ones the calendar knows ahead. */
export const shanghaiDay = (nowMs: number): string => isoDay(nowMs + CST_OFFSET_MS)

/** The days a calendar window must cover for `planDue` at `nowMs`: the closed runs before today and a day after. */
export function calendarWindowAround(nowMs: number): { from: string; to: string } {
  const today = dayMs(isoDay(nowMs + CST_OFFSET_MS))
  return { from: isoDay(today - (2 * MAX_CLOSED_RUN + 2) * DAY_MS), to: isoDay(today + DAY_MS) }
}

/** A date as the Unix seconds of its 00:00 UTC: two dates compare, and differ by 86400 per calendar day. */
export const dateSeconds = (date: string): number => dayMs(date) / 1000
