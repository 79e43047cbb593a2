import type { FastifyError, FastifyInstance } from 'fastify'
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

/** Every error answers `{detail: string}`; 5xx details never carry stacks or SQL. */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    if (err instanceof AppError) return reply.code(err.statusCode).send({ detail: err.message })
    if (err.validation) return reply.code(422).send({ detail: validationDetail(err) })
    const status = err.statusCode ?? 500
    if (status < 500) return reply.code(status).send({ detail: err.message })
    req.log.error({ err }, 'unhandled error')
    return reply.code(500).send({ detail: 'Internal Server Error' })
  })
  app.setNotFoundHandler((req, reply) => reply.code(404).send({ detail: `Not Found: ${req.method} ${req.url.split('?')[0]}` }))
}
