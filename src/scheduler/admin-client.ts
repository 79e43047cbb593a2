import { errorText } from '../errors.js'
import { redirectRefusal } from '../redirects.js'
import { TOKEN_HEADER_OUT } from './protocol.js'

/** Executor -> admin calls (`api/callback`, `api/registry`, `api/registryRemove`). */
export interface AdminClient {
  /** Whether any admin address is configured. */
  readonly enabled: boolean
  /**
   * POSTs `body` as JSON to `<admin>/api/<name>` for each admin address in order until one answers HTTP 200 with
   * `code` 200 (the Java executor's rule). The error text names every address tried; it never holds the token.
   */
  post(name: string, body: unknown): Promise<{ ok: true; address: string } | { ok: false; error: string }>
}

export interface AdminClientOptions {
  readonly addresses: readonly string[]
  readonly accessToken: string | undefined
  readonly timeoutMs: number
  readonly fetch: typeof fetch
}

/** `http://admin:8080/xxl-job-admin` or with a trailing `/` -> `http://admin:8080/xxl-job-admin/api/callback`. */
export function adminUrl(address: string, name: string): string {
  return `${address.replace(/\/+$/, '')}/api/${name}`
}

export function createAdminClient(options: AdminClientOptions): AdminClient {
  const headers: Record<string, string> = { 'content-type': 'application/json;charset=UTF-8' }
  if (options.accessToken) headers[TOKEN_HEADER_OUT] = options.accessToken
  return {
    enabled: options.addresses.length > 0,
    async post(name, body) {
      const errors: string[] = []
      const payload = JSON.stringify(body)
      for (const address of options.addresses) {
        try {
          const url = adminUrl(address, name)
          const res = await options.fetch(url, {
            method: 'POST',
            headers,
            body: payload,
            // the token and the body go to the configured address only, never where a redirect points
            redirect: 'manual',
            signal: AbortSignal.timeout(options.timeoutMs),
          })
          const text = await res.text()
          const redirect = redirectRefusal(res, url)
          if (redirect !== undefined) {
            errors.push(`${address}: ${redirect}`)
            continue
          }
          if (res.status !== 200) {
            errors.push(`${address}: HTTP ${res.status}`)
            continue
          }
          let reply: { code?: unknown; msg?: unknown } | undefined
          try {
            reply = JSON.parse(text) as { code?: unknown; msg?: unknown }
          } catch {
            reply = undefined
          }
          if (reply?.code === 200) return { ok: true, address }
          const msg = typeof reply?.msg === 'string' ? ` ${reply.msg.slice(0, 200)}` : ''
          errors.push(`${address}: code ${String(reply?.code ?? 'missing')}${msg}`)
        } catch (err) {
          errors.push(`${address}: ${errorText(err, { withCause: true })}`)
        }
      }
      return { ok: false, error: errors.length > 0 ? errors.join('; ') : 'no admin address configured' }
    },
  }
}
