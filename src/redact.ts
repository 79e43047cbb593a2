/**
 * URLs with their secrets taken out, for every text a person or another system reads (log lines, error texts,
 * `/health`, run logs, callback messages): the userinfo (`user:password@`) and the query string (`?key=…`) become
 * `***`. The one helper for it.
 */
export function redactUrl(url: string): string {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return redactUrlsIn(url)
  }
  const auth = parsed.username !== '' || parsed.password !== '' ? '***@' : ''
  const query = parsed.search !== '' ? '?***' : ''
  const path = parsed.pathname === '/' && !url.includes(`${parsed.host}/`) ? '' : parsed.pathname
  return `${parsed.protocol}//${auth}${parsed.host}${path}${query}`
}

/** Any `scheme://…` in a text, e.g. an error message naming the address it failed on. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi
/** `user:pass@host` without a scheme (some drivers' messages). */
const USERINFO = /(^|[\s"'(=])[^\s"'():/@]+:[^\s"'@/]+@(?=[\w.-]+[:/\s"']|[\w.-]+$)/g

/** `text` with every URL in it redacted as `redactUrl` does. */
export function redactUrlsIn(text: string): string {
  return text
    .replace(URL_IN_TEXT, (found) => {
      const trailing = /[.,;:)\]]+$/.exec(found)?.[0] ?? ''
      const bare = found.slice(0, found.length - trailing.length)
      try {
        new URL(bare)
      } catch {
        return found.replace(/\/\/[^@/\s]*@/, '//***@').replace(/\?\S*/, '?***')
      }
      return redactUrl(bare) + trailing
    })
    .replace(USERINFO, '$1***@')
}

const IPV4 = /(?<![\w.])\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?(?![\w.])/g
const BRACKETED_IPV6 = /\[[0-9a-f:.]+(?:%[\w.-]+)?\](?::\d{1,5})?/gi
// node writes an IPv6 peer and its port as `::1:5432`; a clock time (`12:30:45`) has neither `::` nor 4 colons
const BARE_IPV6 = /(?<![\w:.])(?:[0-9a-f]{0,4}:){2,8}[0-9a-f]{0,4}(?:%[\w.-]+)?(?![\w:.])/gi
/** The peer named by a socket error (`connect ECONNREFUSED db.lan:5432`, `getaddrinfo ENOTFOUND db.lan`). */
const SOCKET_PEER = /\b((?:connect|getaddrinfo|read|write) E[A-Z_]+) (?!\*\*\*)[^\s;,)]+/g

/**
 * `text` with every network address in it (an IPv4 or IPv6 literal with its port, the host a socket error names)
 * replaced by `***`: for what the service answers a caller (error details, `/health`), which must not map the
 * network behind it. Logs keep the addresses.
 */
export function withoutAddresses(text: string): string {
  return text
    .replace(BRACKETED_IPV6, '***')
    .replace(IPV4, '***')
    .replace(BARE_IPV6, (found) => (found.includes('::') || found.split(':').length > 4 ? '***' : found))
    .replace(SOCKET_PEER, '$1 ***')
}
