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
