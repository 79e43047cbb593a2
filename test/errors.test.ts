import { describe, expect, it } from 'vitest'
import { DomainError, errorText, isDomainError } from '../src/errors.js'

describe('errorText', () => {
  it('is the message, else the name; a thrown non-error is its string', () => {
    expect(errorText(new Error('connect ECONNREFUSED 127.0.0.1:5432'))).toBe('connect ECONNREFUSED 127.0.0.1:5432')
    expect(errorText(new RangeError(''))).toBe('RangeError')
    expect(errorText('plain')).toBe('plain')
    expect(errorText(42)).toBe('42')
  })

  it('an AggregateError without a message gives its distinct inner messages', () => {
    const both = new AggregateError(
      [
        new Error('connect ECONNREFUSED ::1:5432'),
        new Error('connect ECONNREFUSED 127.0.0.1:5432'),
        new Error('connect ECONNREFUSED ::1:5432'),
      ],
      '',
    )
    expect(errorText(both)).toBe('connect ECONNREFUSED ::1:5432; connect ECONNREFUSED 127.0.0.1:5432')
    expect(errorText(new AggregateError([new Error('inner')], 'outer'))).toBe('outer')
  })

  it('withType: `<ExceptionType>: <message>`, the spec error-entry form', () => {
    expect(errorText(new TypeError('x is undefined'), { withType: true })).toBe('TypeError: x is undefined')
    expect(errorText(new DomainError('LookupFailed', 'gone'), { withType: true })).toBe('DomainError: gone')
    expect(errorText('plain', { withType: true })).toBe('Error: plain')
  })

  it("withCause: a timeout says so, a fetch failure names its cause's code or message", () => {
    expect(
      errorText(new DOMException('The operation was aborted due to timeout', 'TimeoutError'), { withCause: true }),
    ).toBe('timed out')
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' })
    expect(errorText(new TypeError('fetch failed', { cause: refused }), { withCause: true })).toBe(
      'fetch failed (ECONNREFUSED)',
    )
    expect(
      errorText(new TypeError('fetch failed', { cause: new Error('other side closed') }), { withCause: true }),
    ).toBe('fetch failed (other side closed)')
    expect(errorText(new TypeError('fetch failed', { cause: refused }))).toBe('fetch failed')
  })
})

describe('DomainError', () => {
  it('carries its code and, when given, the cause', () => {
    const cause = new Error('socket hang up')
    const err = new DomainError('StoreUnavailable', 'plan store unavailable', { cause })
    expect(err).toMatchObject({ code: 'StoreUnavailable', message: 'plan store unavailable', cause })
    expect(isDomainError(err, 'StoreUnavailable')).toBe(true)
    expect(isDomainError(err, 'PlanNotFound')).toBe(false)
    expect(isDomainError(cause, 'StoreUnavailable')).toBe(false)
  })
})
