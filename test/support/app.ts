import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { createServices, type ServiceOptions, type Services } from '../../src/compose.js'
import { buildApp } from '../../src/http/app.js'
import { createLogger, type Logger } from '../../src/logger.js'
import type { DbHandle } from '../../src/storage/db.js'
import { testConfig } from './config.js'

export interface TestApp {
  readonly app: FastifyInstance
  readonly services: Services
  close(): Promise<void>
}

/** The real app over a test database; env overrides config, `log` captures log lines when given. */
export async function buildTestApp(
  store: DbHandle & { url?: string },
  env: Record<string, string> = {},
  options: ServiceOptions & { log?: Logger } = {},
): Promise<TestApp> {
  const config = testConfig(env)
  const log = options.log ?? createLogger(config)
  const services = createServices(config, log, store, options)
  const app = await buildApp(services)
  return {
    app,
    services,
    async close() {
      await app.close()
      await services.close()
    },
  }
}

/** Starts `app` listening on a free port of 127.0.0.1 and gives that port. */
export async function listenLocal(app: FastifyInstance): Promise<number> {
  await app.listen({ port: 0, host: '127.0.0.1' })
  return (app.server.address() as AddressInfo).port
}
