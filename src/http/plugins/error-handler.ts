import { STATUS_CODES } from 'node:http'
import type { Duplex } from 'node:stream'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { withoutAddresses } from '../../redact.js'
import { callerError, STATUS_BY_CODE } from '../error-status.js'

interface ValidationIssue {
  instancePath: string
  keyword?: string
  message?: string
  params?: Record<string, unknown>
}

/** What one schema failure means, in words, e.g. `top must be at most 200`. */
function issueText(name: string, issue: ValidationIssue): string {
  const p = issue.params ?? {}
  switch (issue.keyword) {
    case 'format':
      if (p.format === 'date') return `${name} must be a real calendar date, YYYY-MM-DD`
      return `${name} must be a ${String(p.format)}`
    case 'pattern':
      if (String(p.pattern).includes('\\d{4}-\\d{2}-\\d{2}')) return `${name} must be a real calendar date, YYYY-MM-DD`
      return `${name} must match ${String(p.pattern)}`
    case 'minimum':
      return `${name} must be at least ${String(p.limit)}`
    case 'maximum':
      return `${name} must be at most ${String(p.limit)}`
    case 'maxLength':
      return `${name} must be at most ${String(p.limit)} characters long`
    case 'type':
      return p.type === 'integer' ? `${name} must be a decimal integer` : `${name} must be a ${String(p.type)}`
    case 'required':
      return `${name} is required`
    default:
      return `${name} ${issue.message ?? 'is invalid'}`
  }
}

/** One readable line per validation failure: query parameters by name, other parts with their place. */
export function validationDetail(err: FastifyError): string {
  const where = err.validationContext === 'querystring' ? '' : (err.validationContext ?? 'request')
  const issues = (err.validation ?? []) as ValidationIssue[]
  if (issues.length === 0) return err.message
  return issues
    .map((issue) => {
      const field = issue.instancePath.replace(/^\//, '').replaceAll('/', '.')
      const missing = issue.params?.missingProperty
      const name = [where, field, typeof missing === 'string' ? missing : ''].filter((s) => s !== '').join('.')
      return issueText(name || 'request', issue)
    })
    .join('; ')
}

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08006',
])

// pg's own errors for a connection that is gone carry no code: a query issued on a pooled client whose socket
// failed a moment earlier (the pool has not yet evicted it) says it "is not queryable"
const STORE_DOWN_MESSAGES =
  /timeout exceeded when trying to connect|Connection terminated|connect ECONNREFUSED|is not queryable|timeout expired|Query read timeout/

/** A failure to reach PostgreSQL (as opposed to a bug): worth a 503 that says what to do. */
export function isStoreUnavailable(err: unknown): boolean {
  const e = err as { code?: string; message?: string; errors?: unknown[] }
  if (e?.code && UNAVAILABLE_CODES.has(e.code)) return true
  if (Array.isArray(e?.errors) && e.errors.some(isStoreUnavailable)) return true // AggregateError from net
  return STORE_DOWN_MESSAGES.test(e?.message ?? '')
}

/**
 * Every error answers `{detail: string}`; 5xx details never carry stacks, SQL or network addresses. A domain error's status comes
 * from its code (error-status.ts); a driver error that says the store cannot be reached is that table's
 * StoreUnavailable.
 */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    const known = callerError(err)
    if (known) {
      // a failure's text may name the store's address (`connect ECONNREFUSED 10.0.0.5:5432`): not the caller's to know
      const detail = known.status >= 500 ? withoutAddresses(known.detail) : known.detail
      return reply.code(known.status).send({ detail })
    }
    if (err.validation) return reply.code(422).send({ detail: validationDetail(err) })
    const status = err.statusCode ?? 500
    if (status < 500) return reply.code(status).send({ detail: err.message })
    if (isStoreUnavailable(err)) {
      req.log.warn({ err: { message: err.message, code: err.code } }, 'store unavailable')
      return reply
        .code(STATUS_BY_CODE.StoreUnavailable)
        .send({ detail: `store unavailable (${withoutAddresses(err.message || err.code || '')}); retry shortly` })
    }
    req.log.error({ err }, 'unhandled error')
    return reply.code(500).send({ detail: 'Internal Server Error' })
  })
  // the methods of every static path, so a known path asked with another method is a 405 with `Allow`
  const methodsByPath = new Map<string, Set<string>>()
  app.addHook('onRoute', (route) => {
    if (route.url.includes('*') || route.url.includes(':')) return
    const methods = methodsByPath.get(route.url) ?? new Set<string>()
    for (const method of [route.method].flat()) methods.add(method)
    if (methods.has('GET')) methods.add('HEAD')
    methodsByPath.set(route.url, methods)
  })
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0] ?? ''
    const allowed = methodsByPath.get(path)
    if (allowed && !allowed.has(req.method)) {
      const allow = [...allowed].sort().join(', ')
      return reply
        .code(405)
        .header('allow', allow)
        .send({ detail: `Method Not Allowed: ${req.method} ${path}; use ${allow}` })
    }
    return reply.code(404).send({ detail: `Not Found: ${req.method} ${path}` })
  })
}

/**
 * Fastify's `frameworkErrors` option: what it answers before routing (a malformed percent-escape in the path,
 * 400; an over-long path parameter, 414) as `{detail}` like every other error, instead of its own body.
 */
export function frameworkErrors(err: FastifyError, _req: FastifyRequest, reply: FastifyReply): void {
  const detail = err.message.length > 300 ? `${err.message.slice(0, 300)}...` : err.message
  reply.code(err.statusCode ?? 400).send({ detail })
}

/**
 * Fastify's `clientErrorHandler` option: requests node's HTTP parser refuses (request line and headers over
 * the size limit: 431; a request that took too long: 408; anything malformed: 400) answered `{detail}` on the
 * raw socket, then the connection is closed, as Fastify's default handler does with its own body.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  const [status, detail] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'request line and headers exceed the size limit']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'request timed out']
        : [400, 'malformed HTTP request']
  const body = JSON.stringify({ detail })
  // a HEAD response never has a body (its Content-Length is still the body's a GET would get)
  const head = (err as { rawPacket?: Buffer }).rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD '
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${head ? '' : body}`,
    )
  }
  socket.destroy(err)
}
