import { BUILD_RULES } from './build-rules.js'
import { roundTo as round } from './stats.js'

export interface ThemeEvent {
  readonly trade_date: string
  readonly theme: string
  readonly intensity: number
}

/** EMA (span N) over the trading days of `calendar`, a day without events counting as 0. */
export function eventEma(events: readonly ThemeEvent[], calendar: readonly string[]): Map<string, number> {
  const alpha = 2 / (BUILD_RULES.heatEmaSpan + 1)
  const byTheme = new Map<string, Map<string, number>>()
  for (const e of events) {
    const days = byTheme.get(e.theme) ?? new Map<string, number>()
    days.set(e.trade_date, Math.max(days.get(e.trade_date) ?? 0, e.intensity))
    byTheme.set(e.theme, days)
  }
  const out = new Map<string, number>()
  for (const [theme, days] of byTheme) {
    let ema = 0
    for (const date of calendar) ema = alpha * (days.get(date) ?? 0) + (1 - alpha) * ema
    out.set(theme, ema)
  }
  return out
}

/** Heat 0..100 = event EMA blended with the share of members that rose on the day. */
export function themeHeat(ema: number, breadth: number | null): number {
  const share = BUILD_RULES.heatEventShare
  const value = breadth === null ? ema : share * ema + (1 - share) * breadth * 100
  return round(Math.min(100, Math.max(0, value)), 1)
}
