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

function failureText(err: unknown): string {
  if (!(err instanceof Error)) return String(err)
  if (err.name === 'TimeoutError') return 'timed out'
  const cause = (err as { cause?: unknown }).cause
  const causeText =
    cause instanceof Error ? (((cause as { code?: unknown }).code as string | undefined) ?? cause.message) : undefined
  return causeText ? `${err.message} (${causeText})` : err.message
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
          const res = await options.fetch(adminUrl(address, name), {
            method: 'POST',
            headers,
            body: payload,
            signal: AbortSignal.timeout(options.timeoutMs),
          })
          const text = await res.text()
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
          errors.push(`${address}: ${failureText(err)}`)
        }
      }
      return { ok: false, error: errors.length > 0 ? errors.join('; ') : 'no admin address configured' }
    },
  }
}
