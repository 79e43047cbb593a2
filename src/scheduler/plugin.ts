import type { FastifyPluginAsync } from 'fastify'
import { errorText } from '../errors.js'
import { type ExecutorReply, fail, MSG, TOKEN_HEADER } from './protocol.js'
import { tokenMatches } from './token.js'

/** What the routes call; the executor implements it. Bodies arrive as the raw request text (or undefined). */
export interface ExecutorOps {
  beat(body: unknown): Promise<ExecutorReply>
  idleBeat(body: unknown): Promise<ExecutorReply>
  run(body: unknown): Promise<ExecutorReply>
  kill(body: unknown): Promise<ExecutorReply>
  log(body: unknown): Promise<ExecutorReply>
}

/**
 * The executor's HTTP face, to be registered under `/api/v1/xxljob`: `POST /{beat,idleBeat,run,kill,log}` plus
 * `trigger` (3.5's name for `run`). Like the Java executor it always answers HTTP 200 with a `code`: 500 for a wrong
 * token, an unknown op or another method. It refuses to register without a token (the entry is off then).
 * Encapsulated: its catch-all body parser (raw text, any content type, empty allowed) touches no other route.
 */
export function createXxlJobPlugin(ops: ExecutorOps, accessToken: string | undefined): FastifyPluginAsync {
  return async (app) => {
    if (accessToken === undefined || accessToken.trim() === '') {
      throw new Error('xxl-job executor: XXLJOB_ACCESS_TOKEN is not set, so the scheduler entry must stay off')
    }
    const routes: Record<string, (body: unknown) => Promise<ExecutorReply>> = {
      beat: ops.beat,
      idleBeat: ops.idleBeat,
      run: ops.run,
      trigger: ops.run,
      kill: ops.kill,
      log: ops.log,
    }

    app.removeAllContentTypeParsers()
    app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body))

    app.post('/*', async (req) => {
      // token before the op, as EmbedServer.process does; the header value is never logged or echoed
      if (!tokenMatches(req.headers[TOKEN_HEADER], accessToken)) return fail(MSG.tokenWrong)
      const op = ((req.params as { '*'?: string })['*'] ?? '').replace(/\/+$/, '')
      if (op === '') return fail(MSG.uriEmpty)
      const handle = Object.hasOwn(routes, op) ? routes[op] : undefined
      if (!handle) return fail(MSG.uriNotFound(`/${op.slice(0, 200)}`))
      try {
        return await handle(req.body)
      } catch (err) {
        req.log.error({ op, err: { message: errorText(err) } }, 'xxl-job: request failed')
        return fail(`executor error: ${errorText(err)}`)
      }
    })

    app.route({
      method: ['GET', 'PUT', 'DELETE', 'PATCH'],
      url: '/*',
      handler: async () => fail(MSG.methodNotSupported),
    })
  }
}
