/**
 * Per-stock economics that the price, volume and fundamentals generators share: start price, drift and
 * volatility, liquidity (about 20% thin names whose daily amount stays below 50 million yuan, a few large caps
 * trading billions), share counts, profitability, earnings growth and an occasional ex-dividend day.
 */
import { clamp } from './format.js'
import { Random } from './random.js'
import type { Security } from './securities.js'

export type Liquidity = 'thin' | 'normal' | 'large'

export interface StockProfile {
  /** pre_close of the first bar, in fen. */
  readonly startFen: number
  /** Mean daily return. */
  readonly drift: number
  /** Daily idiosyncratic volatility. */
  readonly vol: number
  /** Exposure to the market factor. */
  readonly beta: number
  readonly liquidity: Liquidity
  /** Typical daily turnover in percent of the float. */
  readonly turnoverBase: number
  readonly floatShares: number
  readonly totalShares: number
  readonly lossMaker: boolean
  /** PE(TTM) on the first day for profitable companies; NaN for loss-makers. */
  readonly pe0: number
  /** Annual growth of TTM earnings. */
  readonly growth: number
  /** Ex-dividend day (calendar index) and cash dividend per share in fen, or null. */
  readonly exDividend: { readonly day: number; readonly fen: number } | null
}

const BOARD_VOL = { main: 0.019, chinext: 0.027, star: 0.029, bse: 0.033, b_share: 0.019 } as const

/** Turnover multiplier's mean (noise and volume-on-move), so the target amount is met on average. */
const TURNOVER_LIFT = 1.15

function roundTo(value: number, step: number): number {
  return Math.max(step, Math.round(value / step) * step)
}

export function stockProfile(seed: number, sec: Security, days: number, hotWeight: number): StockProfile {
  const rng = new Random(seed, 'profile', sec.code)
  const u = rng.next()
  const liquidity: Liquidity = sec.isNew ? 'normal' : u < 0.2 ? 'thin' : u > 0.95 ? 'large' : 'normal'
  let price: number
  let amount: number
  let turnoverBase: number
  if (liquidity === 'thin') {
    price = rng.logUniform(3, 25)
    amount = rng.logUniform(6e6, 28e6)
    turnoverBase = rng.logUniform(0.4, 2.5)
  } else if (liquidity === 'large') {
    price = sec.industry.name === '白酒' ? rng.logUniform(150, 1800) : rng.logUniform(15, 200)
    amount = rng.logUniform(1.5e9, 8e9)
    turnoverBase = rng.logUniform(0.15, 1)
  } else {
    price = clamp(Math.exp(rng.normal(Math.log(15), 0.6)), 2.5, 250)
    amount = rng.logUniform(7e7, 1.2e9)
    turnoverBase = rng.logUniform(0.8, 5)
  }
  const floatShares = roundTo(amount / (price * (turnoverBase / 100) * TURNOVER_LIFT), 10_000)
  const totalShares = roundTo(floatShares / rng.float(0.55, 1), 10_000)
  const lossMaker = sec.isSt || rng.chance(0.08)
  const pe0 = lossMaker ? Number.NaN : rng.logUniform(sec.industry.pe[0], sec.industry.pe[1])
  const growth = clamp(rng.normal(0.1, 0.18), -0.3, 0.7) + 0.3 * hotWeight
  const vol =
    BOARD_VOL[sec.board] * rng.logUniform(0.7, 1.4) * (liquidity === 'large' ? 0.75 : 1) * (sec.isSt ? 0.8 : 1)
  const startFen = Math.round(price * 100)
  let exDividend: StockProfile['exDividend'] = null
  const lastExDay = Math.min(days, sec.suspendFrom) - 3
  const firstExDay = Math.max(sec.firstBar + 1, Math.floor(days * 0.3))
  if (!lossMaker && !sec.isNew && firstExDay <= lastExDay && rng.chance(0.12)) {
    const epsFen = startFen / pe0
    const fen = clamp(Math.round(epsFen * rng.float(0.2, 0.5)), 1, Math.floor(startFen * 0.05))
    if (fen >= 1) exDividend = { day: rng.int(firstExDay, lastExDay), fen }
  }
  return {
    startFen,
    drift: rng.normal(0.0001, 0.0008),
    vol,
    beta: rng.float(0.6, 1.3),
    liquidity,
    turnoverBase,
    floatShares,
    totalShares,
    lossMaker,
    pe0,
    growth,
    exDividend,
  }
}
