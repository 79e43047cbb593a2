/** ISO dates as UTC day numbers, and the demo trading calendar: weekdays minus the exchanges' holiday closures. */

const DAY_MS = 86_400_000
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/

/** Weekday closures of the Shanghai and Shenzhen exchanges, 2024-2026 (Spring Festival, National Day, ...). */
const HOLIDAYS: ReadonlySet<string> = new Set([
  '2024-01-01',
  '2024-02-09',
  '2024-02-12',
  '2024-02-13',
  '2024-02-14',
  '2024-02-15',
  '2024-02-16',
  '2024-04-04',
  '2024-04-05',
  '2024-05-01',
  '2024-05-02',
  '2024-05-03',
  '2024-06-10',
  '2024-09-16',
  '2024-09-17',
  '2024-10-01',
  '2024-10-02',
  '2024-10-03',
  '2024-10-04',
  '2024-10-07',
  '2025-01-01',
  '2025-01-28',
  '2025-01-29',
  '2025-01-30',
  '2025-01-31',
  '2025-02-03',
  '2025-02-04',
  '2025-04-04',
  '2025-05-01',
  '2025-05-02',
  '2025-05-05',
  '2025-06-02',
  '2025-10-01',
  '2025-10-02',
  '2025-10-03',
  '2025-10-06',
  '2025-10-07',
  '2025-10-08',
  '2026-01-01',
  '2026-01-02',
  '2026-02-16',
  '2026-02-17',
  '2026-02-18',
  '2026-02-19',
  '2026-02-20',
  '2026-02-23',
  '2026-04-06',
  '2026-05-01',
  '2026-05-04',
  '2026-05-05',
  '2026-06-19',
  '2026-09-25',
  '2026-10-01',
  '2026-10-02',
  '2026-10-05',
  '2026-10-06',
  '2026-10-07',
])

/** Day number (days since 1970-01-01) of a real ISO date; throws on anything else. */
export function dayNumber(iso: string): number {
  const m = ISO_DATE.exec(iso)
  if (!m) throw new RangeError(`"${iso}" is not a date (YYYY-MM-DD)`)
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
  const ms = Date.UTC(y, mo - 1, d)
  const back = new Date(ms)
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) {
    throw new RangeError(`"${iso}" is not a real date`)
  }
  return ms / DAY_MS
}

export function isoFromDayNumber(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10)
}

export function addDays(iso: string, days: number): string {
  return isoFromDayNumber(dayNumber(iso) + days)
}

/** 0 = Sunday ... 6 = Saturday. */
export function weekday(iso: string): number {
  return (((dayNumber(iso) + 4) % 7) + 7) % 7
}

export function isTradingDay(iso: string): boolean {
  const wd = weekday(iso)
  return wd !== 0 && wd !== 6 && !HOLIDAYS.has(iso)
}

/** The last `days` trading days on or before `endDate`, oldest first. */
export function tradingCalendar(endDate: string, days: number): string[] {
  const out: string[] = []
  let day = dayNumber(endDate)
  while (out.length < days) {
    const iso = isoFromDayNumber(day)
    if (isTradingDay(iso)) out.push(iso)
    day--
  }
  return out.reverse()
}

/** The last day HOLIDAYS covers: the demo's calendar is known through it, the sessions after its last bar included. */
export const DEMO_CALENDAR_END = '2026-12-31'

/** Every day from `first` through DEMO_CALENDAR_END (or `last`, if later), open or closed, as the demo stores it. */
export function demoCalendarDays(first: string, last: string): { date: string; open: boolean }[] {
  const end = dayNumber(last > DEMO_CALENDAR_END ? last : DEMO_CALENDAR_END)
  const out: { date: string; open: boolean }[] = []
  for (let day = dayNumber(first); day <= end; day++) {
    const date = isoFromDayNumber(day)
    out.push({ date, open: isTradingDay(date) })
  }
  return out
}
