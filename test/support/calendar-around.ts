import { shanghaiDay } from '../../src/domain/plan-due.js'
import { writeTradingCalendar } from '../../src/storage/trading-calendar.repository.js'
import type { TestDatabase } from './test-db.js'

const DAY_MS = 86_400_000

/**
 * A trading calendar around `nowMs` that makes the plan due the same whatever the hour a test runs at: sessions
 * every day up to three days before today (Shanghai), a closed run from two days before to tomorrow, sessions from
 * the day after tomorrow for five weeks. The plan due is then four days before today's, the next plan three days
 * before (its close long past), and 39 sessions are known ahead.
 */
export async function storeCalendarAround(t: TestDatabase, nowMs: number): Promise<{ expected: string; next: string }> {
  const today = Date.parse(shanghaiDay(nowMs))
  const day = (k: number) => new Date(today + k * DAY_MS).toISOString().slice(0, 10)
  const days = []
  for (let k = -40; k <= 40; k++) days.push({ date: day(k), open: k <= -3 || k >= 2 })
  await writeTradingCalendar(t.db, days)
  return { expected: day(-4), next: day(-3) }
}
