import Fastify from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DomainError, type DomainErrorCode } from '../../src/errors.js'
import { HttpError } from '../../src/http/error-status.js'
import { installErrorHandler, isStoreUnavailable } from '../../src/http/plugins/error-handler.js'

// the statuses the spec and README fix for what each domain failure means
const EXPECTED: Record<DomainErrorCode, number> = {
  NoCodes: 400,
  TooManyCodes: 422,
  QueryInvalid: 422,
  TierTableEmpty: 404,
  PlanNotFound: 404,
  StockNotFound: 404,
  LookupFailed: 500,
  StoreUnavailable: 503,
  PlanFileNotWritten: 503,
}

describe('the HTTP error handler maps domain errors by their code', () => {
  const app = Fastify({ logger: false })
  beforeAll(async () => {
    installErrorHandler(app)
    app.get<{ Querystring: { code: DomainErrorCode } }>('/domain', async (req) => {
      throw new DomainError(req.query.code, `what happened: ${req.query.code}`, { cause: new Error('hidden cause') })
    })
    app.get('/edge', async () => {
      throw new HttpError(422, 'top must be given once, not 2 times')
    })
    app.get('/store-down', async () => {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })
    })
    app.get('/bug', async () => {
      throw new TypeError('cannot read properties of undefined')
    })
    await app.ready()
  })
  afterAll(() => app.close())

  it.each(Object.entries(EXPECTED))('%s answers %i with its message as {detail}', async (code, status) => {
    const res = await app.inject(`/domain?code=${code}`)
    expect(res.statusCode).toBe(status)
    expect(res.json()).toEqual({ detail: `what happened: ${code}` })
  })

  it("a driver error saying the store cannot be reached is StoreUnavailable's status, in words", async () => {
    const res = await app.inject('/store-down')
    expect(res.statusCode).toBe(EXPECTED.StoreUnavailable)
    expect(res.json()).toEqual({ detail: 'store unavailable (connect ECONNREFUSED ***); retry shortly' })
  })

  it('an edge refusal answers its own status; any other error is a 500 that hides its text', async () => {
    const edge = await app.inject('/edge')
    expect(edge.statusCode).toBe(422)
    expect(edge.json()).toEqual({ detail: 'top must be given once, not 2 times' })
    const bug = await app.inject('/bug')
    expect(bug.statusCode).toBe(500)
    expect(bug.json()).toEqual({ detail: 'Internal Server Error' })
  })
})

describe('what counts as the store being down', () => {
  // the texts pg and node give when the connection dies mid-request (a postmaster killed under load)
  it.each([
    ['Client has encountered a connection error and is not queryable', undefined],
    ['Client was closed and is not queryable', undefined],
    ['Connection terminated unexpectedly', undefined],
    ['timeout expired', undefined],
    ['write EPIPE', 'EPIPE'],
    ['read ECONNRESET', 'ECONNRESET'],
    ['terminating connection due to administrator command', '57P01'],
  ])('%s', (message, code) => {
    expect(isStoreUnavailable(Object.assign(new Error(message), { code }))).toBe(true)
  })

  it('a query error is not', () => {
    expect(isStoreUnavailable(Object.assign(new Error('relation "x" does not exist'), { code: '42P01' }))).toBe(false)
  })
})
