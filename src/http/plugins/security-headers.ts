import type { FastifyInstance } from 'fastify'

/**
 * `nosniff` on every answer: a JSON body (which may quote a caller's text) is never run as a script or page. And
 * `Cache-Control: no-store` on every answer that does not choose its own (the plan, the viewer's pages): health,
 * lookups, errors and writes are answers of the moment, which no proxy between the service and the PMS may replay.
 */
export function installSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onSend', async (_req, reply, payload) => {
    reply.header('x-content-type-options', 'nosniff')
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store')
    return payload
  })
}

/**
 * The CSP of `/docs`, from the one @fastify/swagger-ui makes with the hashes of its inline scripts: framing refused,
 * nothing fetched from other hosts (no fonts, styles or validator badge), and no `upgrade-insecure-requests`,
 * which would break the page on the plain-HTTP LAN address the service is reached at.
 */
export function docsCsp(header: string | number | string[]): string {
  return String(header)
    .split(';')
    .map((d) => d.trim())
    .filter((d) => d !== '' && d !== 'upgrade-insecure-requests')
    .map((d) =>
      d
        .replace(/^frame-ancestors .*/, "frame-ancestors 'none'")
        // Swagger UI inserts a <style> element from script; styles cannot run code, scripts stay hash-only
        .replace(/^style-src .*/, "style-src 'self' 'unsafe-inline'")
        .replace(/ https:/g, '')
        .replace(/ validator\.swagger\.io/g, ''),
    )
    .concat("form-action 'self'")
    .join('; ')
}
