import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { anyScalar, anyText } from '../support/any-text.js'

describe('anyText, the fuzz tests’ any-Unicode string', () => {
  it('draws single scalar values from the whole range, never a surrogate, and reads each back for shrinking', () => {
    const drawn = fc.sample(anyScalar, { numRuns: 20_000, seed: 42 })
    const codes = drawn.map((c) => c.codePointAt(0)!)
    expect(drawn.every((c, i) => String.fromCodePoint(codes[i]!) === c)).toBe(true)
    expect(codes.filter((c) => c >= 0xd800 && c < 0xe000)).toEqual([])
    expect(codes.some((c) => c < 0x20)).toBe(true) // controls
    expect(codes.some((c) => c >= 0xe000 && c < 0x10000)).toBe(true) // past the surrogates
    expect(codes.some((c) => c > 0xffff)).toBe(true) // astral
    for (const c of [...drawn.slice(0, 100), '\u0000', '\ud7ff', '\ue000', '\u{10ffff}']) {
      expect(anyScalar.canShrinkWithoutContext(c)).toBe(true)
    }
    for (const notOne of ['', 'ab', '\ud800', 7]) expect(anyScalar.canShrinkWithoutContext(notOne)).toBe(false)
  })

  it('keeps the length limits', () => {
    for (const text of fc.sample(anyText({ minLength: 2, maxLength: 5 }), { numRuns: 500, seed: 7 })) {
      expect([...text].length).toBeGreaterThanOrEqual(2)
      expect([...text].length).toBeLessThanOrEqual(5)
    }
  })
})
