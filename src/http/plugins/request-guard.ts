import type { IncomingHttpHeaders } from 'node:http'
import type { FastifyInstance } from 'fastify'

/**
 * Who may ask, before any route runs. The API has no authentication by the spec (a LAN service), so what a
 * browser on that LAN can be made to send is the risk: a page of another origin can POST (a form, a no-cors
 * fetch) without reading the answer, and a rebinding DNS name can point such a page at this host.
 */
export interface RequestGuardOptions {
  /** Host names (or `name:port`) answered; undefined answers any. */
  readonly allowedHosts: readonly string[] | undefined
  /** Origins besides the service's own whose pages may send state-changing requests. */
  readonly allowedOrigins: readonly string[]
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])
/** The content types a page can send cross-site without a preflight (a form, or a no-cors fetch). */
const SIMPLE_BODY_TYPES = new Set(['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain'])
/** `Sec-Fetch-Site` values of a request the page of this very origin (or the user, typing) made. */
const OWN_FETCH_SITES = new Set(['same-origin', 'none'])

const hostName = (host: string): string => host.replace(/:\d+$/, '')

/** Why `Host` is refused, or undefined when it is answered. */
export function refusedHost(host: string | undefined, allowed: readonly string[] | undefined): string | undefined {
  if (allowed === undefined) return undefined
  const value = (host ?? '').toLowerCase()
  if (allowed.includes(value) || allowed.includes(hostName(value))) return undefined
  return `Host "${value.slice(0, 100)}" is not one this service answers to; add it to ALLOWED_HOSTS if it should be`
}

/**
 * Why a state-changing request is refused as one a browser could have sent from another site, or undefined.
 * A server-side caller (the PMS, the XXL-JOB admin, curl) sends no `Origin` and no form body: it passes.
 */
export function refusedCrossSite(
  headers: IncomingHttpHeaders,
  options: Pick<RequestGuardOptions, 'allowedOrigins'>,
): string | undefined {
  const origin = headers.origin
  if (origin !== undefined) {
    const own = [`http://${headers.host ?? ''}`, `https://${headers.host ?? ''}`]
    if (!own.includes(origin.toLowerCase()) && !options.allowedOrigins.includes(origin))
      return `a page of origin "${origin.slice(0, 100)}" may not change this service's state; add it to ALLOWED_ORIGINS if it should`
  } else {
    const site = headers['sec-fetch-site']
    if (typeof site === 'string' && !OWN_FETCH_SITES.has(site))
      return `a ${site} browser request may not change this service's state`
  }
  const type = headers['content-type']?.split(';')[0]?.trim().toLowerCase()
  if (type !== undefined && SIMPLE_BODY_TYPES.has(type))
    return `a ${type} body (what a browser form sends) is refused here; send no body or application/json`
  return undefined
}

/** Answers 403 `{detail}` to a refused `Host`, and to a state-changing request a foreign page could have made. */
export function installRequestGuard(app: FastifyInstance, options: RequestGuardOptions): void {
  app.addHook('onRequest', async (req, reply) => {
    const refusal =
      refusedHost(req.headers.host, options.allowedHosts) ??
      (SAFE_METHODS.has(req.method) ? undefined : refusedCrossSite(req.headers, options))
    if (refusal !== undefined) return reply.code(403).send({ detail: refusal })
  })
}
