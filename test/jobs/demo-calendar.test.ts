import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEMO_CALENDAR_END, demoCalendarDays, tradingCalendar } from '../../src/jobs/demo/calendar.js'
import { runCli } from '../support/cli-process.js'
import { rows } from '../support/queries.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'

describe('the demo stores its own trading calendar', () => {
  let t: TestDatabase
  let dir: string
  beforeAll(async () => {
    t = await createTestDatabase()
    dir = await mkdtemp(path.join(os.tmpdir(), 'stockplan-demo-calendar-'))
  })
  afterAll(async () => {
    await t.drop()
    await rm(dir, { recursive: true, force: true })
  })

  it('lists every day from a first one through the end of the holidays it knows, open or closed', () => {
    const days = demoCalendarDays('2026-09-30', '2026-11-20')
    expect(days[0]).toEqual({ date: '2026-09-30', open: true })
    expect(days.at(-1)?.date).toBe(DEMO_CALENDAR_END)
    expect(days.find((d) => d.date === '2026-10-07')).toEqual({ date: '2026-10-07', open: false }) // National Day
    expect(days.find((d) => d.date === '2026-10-10')).toEqual({ date: '2026-10-10', open: false }) // a Saturday
    expect(days.find((d) => d.date === '2026-12-31')).toEqual({ date: '2026-12-31', open: true })
  })

  it('`stockplan demo` leaves the calendar from its first bar to the sessions after its last', async () => {
    const run = await runCli(
      ['demo', '--stocks', '30', '--days', '60', '--history', '1', '--regenerate'],
      { DATABASE_URL: t.url, DEMO_DATA_DIR: dir, PLAN_DATA_DIR: path.join(dir, 'plan') },
      { timeoutMs: 120_000 },
    )
    expect(run.code, run.output).toBe(0)
    const sessions = tradingCalendar('2026-11-20', 60)
    const [bounds] = await rows(
      t,
      `select min(cal_date)::text as first, max(cal_date)::text as last,
        count(*) filter (where is_open and cal_date > '2026-11-20')::int as ahead,
        count(*) filter (where is_open and cal_date <= '2026-11-20')::int as behind
       from trading_calendar`,
    )
    expect(bounds).toEqual({
      first: sessions[0],
      last: DEMO_CALENDAR_END,
      ahead: demoCalendarDays('2026-11-21', '2026-11-21').filter((d) => d.open).length,
      behind: 60,
    })
    // the bars and the calendar agree on the sessions: the build's calendar is the stored one
    const [bars] = await rows(t, `select count(distinct trade_date)::int as n from daily_bars`)
    expect(bars).toEqual({ n: 60 })
  })
})
