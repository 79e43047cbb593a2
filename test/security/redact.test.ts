import { describe, expect, it } from 'vitest'
import { redactUrl, redactUrlsIn } from '../../src/redact.js'

describe('redactUrl / redactUrlsIn', () => {
  it('takes out userinfo and query strings, keeping scheme, host, port and path', () => {
    expect(redactUrl('https://u:p@pms.lan/push?token=abc')).toBe('https://***@pms.lan/push?***')
    expect(redactUrl('postgres://postgres:pw@127.0.0.1:5432/x')).toBe('postgres://***@127.0.0.1:5432/x')
    expect(redactUrl('http://pms.lan:8080')).toBe('http://pms.lan:8080')
    expect(redactUrl('http://pms.lan:8080/pool')).toBe('http://pms.lan:8080/pool')
  })

  it('redacts a URL the WHATWG parser refuses (a port out of range) and URLs inside a text', () => {
    expect(redactUrl('postgres://postgres:pw@127.0.0.1:99999/x')).toBe('postgres://***@127.0.0.1:99999/x')
    expect(
      redactUrlsIn('Request cannot be constructed from a URL that includes credentials: http://a:b@h:1/p?k=v.'),
    ).toBe('Request cannot be constructed from a URL that includes credentials: http://***@h:1/p?***.')
    expect(redactUrlsIn('login of user:secret@db.lan failed')).toBe('login of ***@db.lan failed')
    expect(redactUrlsIn('no URL here: 10:30 at 2024-06-03')).toBe('no URL here: 10:30 at 2024-06-03')
  })
})
