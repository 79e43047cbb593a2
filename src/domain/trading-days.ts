/** Whether a date argument is a trading day, and the advice that names the nearest ones when it is not. */

export interface CalendarAround {
  /** true/false when a trading calendar covers the date; undefined when none does. */
  readonly open: boolean | undefined
  /** The last trading day before the date and the first after it, when known. */
  readonly before: string | undefined
  readonly after: string | undefined
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const

export function weekdayOf(date: string): (typeof WEEKDAYS)[number] {
  return WEEKDAYS[new Date(`${date}T00:00:00Z`).getUTCDay()]!
}

/**
 * Why `date` is not a trading day, naming the nearest ones, or undefined when it is (or may be: without a
 * calendar only weekends are known to be closed).
 */
export function notATradingDay(date: string, around: CalendarAround): string | undefined {
  const weekday = weekdayOf(date)
  const weekend = weekday === 'Saturday' || weekday === 'Sunday'
  if (around.open === true || (around.open === undefined && !weekend)) return undefined
  const why = weekend ? `a ${weekday}` : 'an exchange holiday'
  const nearest = [around.before, around.after].filter((d): d is string => d !== undefined)
  const advice =
    nearest.length === 0
      ? 'import data first: no trading day is known yet'
      : `the nearest trading day${nearest.length > 1 ? 's are' : ' is'} ${nearest
          .map((d) => `${d} (${weekdayOf(d)})`)
          .join(' and ')}; use one of those`
  return `${date} is ${why}, not a trading day: ${advice}`
}

/** The first index of the ascending `calendar` whose day is after `date` (`orOn`: on or after it); its length if none. */
function firstIndexPast(calendar: readonly string[], date: string, orOn: boolean): number {
  let lo = 0
  let hi = calendar.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    const day = calendar[mid]!
    if (day < date || (!orOn && day === date)) lo = mid + 1
    else hi = mid
  }
  return lo
}

/**
 * How many days of the ascending `calendar` lie from `from` to `to`, both included (to the calendar's end without
 * `to`). A binary search: a count by filter, per stock per day, grew with the history (issue 28's flatness).
 */
export function tradingDaysBetween(calendar: readonly string[], from: string, to?: string): number {
  const first = firstIndexPast(calendar, from, true)
  const end = to === undefined ? calendar.length : firstIndexPast(calendar, to, false)
  return Math.max(0, end - first)
}
