import { redactUrl } from './redact.js'

/**
 * Outbound calls carry secrets (the XXL-JOB token, the pool and its push URL's credentials), so they are made with
 * `redirect: 'manual'` and a 3xx answer is reported, never followed: these words say so and where it pointed.
 * Undefined for any answer that is not a redirect.
 */
export function redirectRefusal(res: { status: number; headers: Headers }, from: string): string | undefined {
  if (res.status < 300 || res.status > 399) return undefined
  const location = res.headers.get('location')
  let target = 'nowhere named'
  try {
    if (location !== null) target = redactUrl(new URL(location, from).toString())
  } catch {
    target = 'an invalid address'
  }
  return `HTTP ${res.status} redirect to ${target} not followed (the token and the body go to the configured address only)`
}
