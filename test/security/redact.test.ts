import { describe, expect, it } from 'vitest'
import { redactUrl, redactUrlsIn, withoutAddresses } from '../../src/redact.js'

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

describe('withoutAddresses', () => {
  it('takes every IPv4 and IPv6 literal with its port, and the host a socket error names, out of a text', () => {
    const cases: Array<[string, string]> = [
      ['connect ECONNREFUSED 127.0.0.1:5432', 'connect ECONNREFUSED ***'],
      [
        'connect EMFILE 10.20.30.40:5432 - Local (undefined:undefined)',
        'connect EMFILE *** - Local (undefined:undefined)',
      ],
      ['connect ECONNREFUSED ::1:5432', 'connect ECONNREFUSED ***'],
      ['connect ETIMEDOUT [fe80::1%eth0]:5432', 'connect ETIMEDOUT ***'],
      ['read ECONNRESET 2001:db8:0:0:1:0:0:1:5432', 'read ECONNRESET ***'],
      ['getaddrinfo ENOTFOUND db.internal.lan', 'getaddrinfo ENOTFOUND ***'],
      // the resolver itself down: its codes carry an underscore
      ['getaddrinfo EAI_AGAIN db.internal.corp', 'getaddrinfo EAI_AGAIN ***'],
      [
        'no pg_hba.conf entry for host "10.1.2.3", user "stockplan"',
        'no pg_hba.conf entry for host "***", user "stockplan"',
      ],
    ]
    for (const [text, clean] of cases) expect(withoutAddresses(text), text).toBe(clean)
  })

  it('leaves clock times, dates, versions and plain words alone', () => {
    for (const text of ['at 12:30:45 on 2024-06-03', 'version 1.2.3', 'timeout exceeded when trying to connect'])
      expect(withoutAddresses(text)).toBe(text)
  })
})
