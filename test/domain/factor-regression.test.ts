import { describe, expect, it } from 'vitest'
import { deflatedSharpe, expectedMaxSharpe } from '../../src/domain/deflated-sharpe.js'
import { regressOnFactors } from '../../src/domain/factor-regression.js'
import { normalCdf, normalQuantile } from '../../src/domain/normal.js'

describe('regressOnFactors', () => {
  // y = 0.5 + 2 f + e, f a 0/1 factor: OLS gives each group's mean, and White's variance (no lags) is the sum of the
  // group's squared residuals over its size squared: 0.02 / 9 for the intercept, twice that for the loading
  const f = [0, 1, 0, 1, 0, 1]
  const y = [0.6, 2.4, 0.4, 2.6, 0.5, 2.5]

  it('matches the hand-worked case: alpha, its t, the loading and R²', () => {
    const fit = regressOnFactors(y, [{ name: 'f', values: f }], 0)!
    expect(fit.days).toBe(6)
    expect(fit.alpha).toBeCloseTo(0.5, 12)
    expect(fit.alphaT).toBeCloseTo(0.5 / Math.sqrt(0.02 / 9), 9)
    expect(fit.loadings[0]!.beta).toBeCloseTo(2, 12)
    expect(fit.loadings[0]!.t).toBeCloseTo(2 / Math.sqrt(0.04 / 9), 9)
    expect(fit.r2).toBeCloseTo(1 - 0.04 / 6.04, 12)
  })

  it('leaves out days with a missing value and refuses a collinear factor', () => {
    const fit = regressOnFactors([...y, Number.NaN], [{ name: 'f', values: [...f, 1] }], 0)!
    expect(fit.days).toBe(6)
    expect(
      regressOnFactors(y, [
        { name: 'f', values: f },
        { name: 'g', values: f.map((v) => 2 * v) },
      ]),
    ).toBeNull()
  })

  it('widens the t with positively autocorrelated residuals (Newey-West lags)', () => {
    const x = Array.from({ length: 200 }, (_, i) => Math.sin(i / 3))
    const e = Array.from({ length: 200 }, (_, i) => 0.01 * Math.cos(i / 10))
    const yy = x.map((v, i) => 0.001 + 0.5 * v + e[i]!)
    const white = regressOnFactors(yy, [{ name: 'x', values: x }], 0)!
    const nw = regressOnFactors(yy, [{ name: 'x', values: x }], 8)!
    expect(nw.alpha).toBeCloseTo(white.alpha, 12)
    expect(Math.abs(nw.alphaT!)).toBeLessThan(Math.abs(white.alphaT!))
  })
})

describe('the normal distribution', () => {
  it('has the textbook quantiles and inverts its CDF', () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 5)
    expect(normalQuantile(0.5)).toBeCloseTo(0, 9)
    expect(normalQuantile(0.001)).toBeCloseTo(-3.090232, 5)
    for (const p of [0.001, 0.02, 0.3, 0.7, 0.99, 0.9999]) expect(normalCdf(normalQuantile(p))).toBeCloseTo(p, 6)
    expect(() => normalQuantile(1)).toThrow(/\(0, 1\)/)
  })
})

describe('deflatedSharpe', () => {
  it('puts the best of 38 skill-less tries over 378 days near an IR of 1.8, as the quant review found', () => {
    expect(expectedMaxSharpe(38, 1 / 377) * Math.sqrt(252)).toBeCloseTo(1.77, 2)
    expect(expectedMaxSharpe(1, 1)).toBe(0)
  })

  it('is near 0.5 when the Sharpe ratio equals the lucky best, higher above it, lower with more trials', () => {
    const days = 378
    // a symmetric two-point series with a chosen mean and sd: skew 0, kurtosis 1
    const series = (sr: number) => Array.from({ length: days }, (_, i) => sr + (i % 2 === 0 ? 1 : -1))
    const lucky = expectedMaxSharpe(38, 1 / (days - 1))
    const at = deflatedSharpe(series(lucky * Math.sqrt(days / (days - 1))), 38)!
    expect(at.probability).toBeGreaterThan(0.4)
    expect(at.probability).toBeLessThan(0.6)
    const strong = deflatedSharpe(series(0.3), 38)!
    expect(strong.probability).toBeGreaterThan(0.99)
    expect(deflatedSharpe(series(0.12), 100)!.probability).toBeLessThan(deflatedSharpe(series(0.12), 10)!.probability)
    expect(deflatedSharpe(series(0.1).slice(0, 10), 5)).toBeNull()
  })
})
