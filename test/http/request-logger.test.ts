import Fastify, { LogController } from 'fastify'
import { describe, expect, it, vi } from 'vitest'
import { lazyRequestLogger } from '../../src/http/request-logger.js'
import { captureLog } from '../support/log-capture.js'

describe('the lazy per-request logger', () => {
  async function app() {
    const captured = captureLog('info')
    const child = vi.spyOn(captured.log, 'child')
    const server = Fastify({
      loggerInstance: captured.log,
      logController: new LogController({ disableRequestLogging: true }),
      childLoggerFactory: lazyRequestLogger,
    })
    server.get('/quiet', async () => ({ ok: true }))
    server.get('/warns', async (req) => {
      req.log.warn({ why: 'test' }, 'something to see')
      req.log.debug('below the level')
      return { ok: true }
    })
    await server.ready()
    child.mockClear() // Fastify's own start-up children
    return { server, captured, child }
  }

  it('makes no pino child for a request that does not log', async () => {
    const { server, child } = await app()
    for (let i = 0; i < 5; i++) expect((await server.inject('/quiet')).statusCode).toBe(200)
    expect(child).not.toHaveBeenCalled()
    await server.close()
  })

  it("makes the child on first use: the line carries the request's id, levels still apply", async () => {
    const { server, captured, child } = await app()
    await server.inject('/warns')
    await server.inject('/warns')
    expect(child).toHaveBeenCalledTimes(2)
    const lines = captured.lines.filter((l) => l.msg === 'something to see')
    expect(lines.map((l) => l.reqId)).toEqual(['req-1', 'req-2'])
    expect(lines[0]).toMatchObject({ level: 40, why: 'test' })
    expect(captured.lines.some((l) => l.msg === 'below the level')).toBe(false)
    await server.close()
  })
})
