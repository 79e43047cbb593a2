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
