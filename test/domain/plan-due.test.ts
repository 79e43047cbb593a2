import { describe, expect, it } from 'vitest'
import {
  type CalendarWindow,
  calendarWindowAround,
  dateSeconds,
  isOpenDay,
  planDue,
} from '../../src/domain/plan-due.js'

/** A moment in Shanghai (UTC+8) as ms since the epoch. */
const cst = (date: string, time: string): number => Date.parse(`${date}T${time}:00+08:00`)

/**
 * 2026-09-21 (Mon) .. 2026-10-16 (Fri), stored as tushare gives it, closed days included: National Day closes
 * 2026-10-01 (Thu) to 2026-10-08 (Thu); the market reopens on Friday 2026-10-09.
 */
function calendar(): CalendarWindow {
  const open = new Set<string>()
  for (let d = Date.parse('2026-09-21'); d <= Date.parse('2026-10-16'); d += 86_400_000) {
    const date = new Date(d).toISOString().slice(0, 10)
    const weekday = new Date(d).getUTCDay()
    if (weekday !== 0 && weekday !== 6 && !(date >= '2026-10-01' && date <= '2026-10-08')) open.add(date)
  }
  return { open, first: '2026-09-21', last: '2026-10-16' }
}

describe('planDue: the plan that must exist by now, from the trading calendar', () => {
  it('on a trading day moves to the previous trading day at 08:45 Shanghai time, not before', () => {
    expect(planDue(calendar(), cst('2026-09-24', '08:44')).expectedDate).toBe('2026-09-22')
    expect(planDue(calendar(), cst('2026-09-24', '08:45')).expectedDate).toBe('2026-09-23')
    expect(planDue(calendar(), cst('2026-09-24', '23:59')).expectedDate).toBe('2026-09-23')
  })

  it("keeps Thursday's plan due over the weekend, and wants Friday's from Monday 08:45", () => {
    for (const at of [cst('2026-09-25', '20:00'), cst('2026-09-26', '12:00'), cst('2026-09-28', '08:44')])
      expect(planDue(calendar(), at).expectedDate).toBe('2026-09-24')
    expect(planDue(calendar(), cst('2026-09-28', '08:45')).expectedDate).toBe('2026-09-25')
  })

  it('keeps the last pre-holiday session due through the holiday, then wants the plan of 2026-09-30', () => {
    for (const day of ['2026-10-01', '2026-10-03', '2026-10-06', '2026-10-08'])
      expect(planDue(calendar(), cst(day, '09:00')).expectedDate, day).toBe('2026-09-29')
    expect(planDue(calendar(), cst('2026-10-09', '08:44')).expectedDate).toBe('2026-09-29')
    expect(planDue(calendar(), cst('2026-10-09', '08:45')).expectedDate).toBe('2026-09-30')
    expect(planDue(calendar(), cst('2026-10-12', '08:45')).expectedDate).toBe('2026-10-09')
  })

  it('gives the close of the last session that has closed (15:00 Shanghai), which holidays keep', () => {
    const close = (date: string) => cst(date, '15:00')
    expect(planDue(calendar(), cst('2026-09-24', '14:59')).lastCloseAtMs).toBe(close('2026-09-23'))
    expect(planDue(calendar(), cst('2026-09-24', '15:00')).lastCloseAtMs).toBe(close('2026-09-24'))
    expect(planDue(calendar(), cst('2026-10-05', '21:00')).lastCloseAtMs).toBe(close('2026-09-30'))
    expect(planDue(calendar(), cst('2026-10-09', '16:00')).lastCloseAtMs).toBe(close('2026-10-09'))
  })

  it('gives the date of the plan the next session needs: the last closed session, built after its close', () => {
    expect(planDue(calendar(), cst('2026-09-24', '14:59')).nextDate).toBe('2026-09-23')
    expect(planDue(calendar(), cst('2026-09-24', '15:00')).nextDate).toBe('2026-09-24')
    expect(planDue(calendar(), cst('2026-10-05', '21:00')).nextDate).toBe('2026-09-30')
  })

  it('does not guess past the stored calendar: a weekday after its end is unknown, and so is the plan due', () => {
    const c = calendar()
    expect(isOpenDay(c, '2026-10-19')).toBeUndefined() // a Monday after the calendar's end
    expect(isOpenDay(c, '2026-09-20')).toBeUndefined() // and a Sunday before its start
    expect(isOpenDay(c, '2026-10-05')).toBe(false) // inside: the holiday
    expect(isOpenDay(c, '2026-10-16')).toBe(true)
    expect(planDue(c, cst('2026-10-16', '09:00'))).toEqual({
      expectedDate: '2026-10-15',
      lastCloseAtMs: cst('2026-10-15', '15:00'),
      nextDate: '2026-10-15',
    })
    expect(planDue(c, cst('2026-10-20', '09:00'))).toEqual({
      expectedDate: undefined,
      lastCloseAtMs: undefined,
      nextDate: undefined,
    })
    // the day before the session is outside the calendar: which plan it needed is not known either
    expect(planDue(c, cst('2026-09-21', '09:00')).expectedDate).toBeUndefined()
    const none: CalendarWindow = { open: new Set(), first: undefined, last: undefined }
    expect(planDue(none, cst('2026-09-28', '09:00')).expectedDate).toBeUndefined()
  })

  it('asks for a window that covers the longest closed runs before today', () => {
    const now = cst('2026-10-09', '09:00')
    const window = calendarWindowAround(now)
    expect(window.from <= '2026-09-01').toBe(true)
    expect(window.to).toBe('2026-10-10')
  })

  it('writes a date as the Unix seconds of its 00:00 UTC: one day is 86400', () => {
    expect(dateSeconds('1970-01-02')).toBe(86_400)
    expect(dateSeconds('2026-10-09') - dateSeconds('2026-09-30')).toBe(9 * 86_400)
  })
})
