import fc from 'fast-check'

const SURROGATES = 0xe000 - 0xd800

/**
 * One Unicode scalar value (any code point but a surrogate) as a string: what fast-check's `unit: 'binary'` draws,
 * with the same distribution (a biased integer over the same 1,112,064 choices, smallest first). fast-check maps
 * `'binary'` through a table whose reverse it builds, a Map of every code point, the first time a string arbitrary
 * checks which of its injected slices it can produce: about a second of CPU in each test process that uses it.
 */
export const anyScalar: fc.Arbitrary<string> = fc.integer({ min: 0, max: 0x10ffff - SURROGATES }).map(
  (index) => String.fromCodePoint(index < 0xd800 ? index : index + SURROGATES),
  (value) => {
    const code = typeof value === 'string' ? value.codePointAt(0) : undefined
    if (code === undefined || String.fromCodePoint(code) !== value || (code >= 0xd800 && code < 0xe000))
      throw new Error('not one Unicode scalar value')
    return code < 0xd800 ? code : code - SURROGATES
  },
)

/** `fc.string({ unit: 'binary', ...constraints })` without the reverse table (see `anyScalar`). */
export const anyText = (constraints: { minLength?: number; maxLength?: number } = {}): fc.Arbitrary<string> =>
  fc.string({ ...constraints, unit: anyScalar })
