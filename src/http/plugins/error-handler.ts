import { STATUS_CODES } from 'node:http'
import type { Duplex } from 'node:stream'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { AppError } from '../../errors.js'

interface ValidationIssue {
  instancePath: string
  message?: string
  params?: Record<string, unknown>
}

/** One readable line per validation failure, e.g. `query.top must be <= 200`. */
export function validationDetail(err: FastifyError): string {
  const where = err.validationContext === 'querystring' ? 'query' : (err.validationContext ?? 'request')
  const issues = (err.validation ?? []) as ValidationIssue[]
  if (issues.length === 0) return err.message
  return issues
    .map((issue) => {
      const field = issue.instancePath.replace(/^\//, '').replaceAll('/', '.')
      const missing = issue.params?.missingProperty
      const name = [where, field, typeof missing === 'string' ? missing : ''].filter((s) => s !== '').join('.')
      return `${name} ${issue.message ?? 'is invalid'}`
    })
    .join('; ')
}

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
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

/** A failure to reach PostgreSQL (as opposed to a bug): worth a 503 that says what to do. */
export function isStoreUnavailable(err: unknown): boolean {
  const e = err as { code?: string; message?: string; errors?: unknown[] }
  if (e?.code && UNAVAILABLE_CODES.has(e.code)) return true
  if (Array.isArray(e?.errors) && e.errors.some(isStoreUnavailable)) return true // AggregateError from net
  return /timeout exceeded when trying to connect|Connection terminated|connect ECONNREFUSED/.test(e?.message ?? '')
}

/** Every error answers `{detail: string}`; 5xx details never carry stacks or SQL. */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    if (err instanceof AppError) return reply.code(err.statusCode).send({ detail: err.message })
    if (err.validation) return reply.code(422).send({ detail: validationDetail(err) })
    const status = err.statusCode ?? 500
    if (status < 500) return reply.code(status).send({ detail: err.message })
    if (isStoreUnavailable(err)) {
      req.log.warn({ err: { message: err.message, code: err.code } }, 'store unavailable')
      return reply.code(503).send({ detail: `store unavailable (${err.message || err.code}); retry shortly` })
    }
    req.log.error({ err }, 'unhandled error')
    return reply.code(500).send({ detail: 'Internal Server Error' })
  })
  app.setNotFoundHandler((req, reply) =>
    reply.code(404).send({ detail: `Not Found: ${req.method} ${req.url.split('?')[0]}` }),
  )
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
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`,
    )
  }
  socket.destroy(err)
}
