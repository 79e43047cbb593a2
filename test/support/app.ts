import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/http/app.js'
import { createLogger } from '../../src/logger.js'
import type { Db } from '../../src/storage/db.js'
import { createTierRepository } from '../../src/storage/tier.repository.js'
import { testConfig } from './config.js'

export async function buildTestApp(db: Db, env: Record<string, string> = {}): Promise<FastifyInstance> {
  const config = testConfig(env)
  return buildApp({ config, log: createLogger(config), tiers: createTierRepository(db) })
}
