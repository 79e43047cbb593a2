/**
 * The OpenAPI linter an integrator would run: `@stoplight/spectral-cli` with the `spectral:oas` ruleset
 * (`.spectral.yaml`) over the document the app serves, with the scheduler entry mounted (it must stay out of the
 * public document). Zero results of any severity: errors, warnings, infos and hints.
 */
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServices, type Services } from '../../src/compose.js'
import { buildApp } from '../../src/http/app.js'
import { createLogger } from '../../src/logger.js'
import type { XxlJobExecutor } from '../../src/scheduler/index.js'
import { createScheduler, mountScheduler } from '../../src/scheduler-wiring.js'
import { createMetrics } from '../../src/services/metrics.js'
import { testConfig } from '../support/config.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'

const run = promisify(execFile)
const SPECTRAL = path.resolve('node_modules/@stoplight/spectral-cli/dist/index.js')

describe('spectral:oas on the served /openapi.json', () => {
  let t: TestDatabase
  let services: Services
  let executor: XxlJobExecutor
  let app: Awaited<ReturnType<typeof buildApp>>
  let dir: string
  beforeAll(async () => {
    t = await createTestDatabase()
    dir = await mkdtemp(path.join(os.tmpdir(), 'stockplan-spectral-'))
    const config = testConfig({ XXLJOB_ACCESS_TOKEN: 'contract-test-token', PLAN_DATA_DIR: dir })
    services = createServices(config, createLogger(config), t)
    const metrics = createMetrics({ defaults: false })
    executor = createScheduler(services, metrics)!
    app = await buildApp({ ...services, metrics, extraPlugins: [mountScheduler(executor)] })
  })
  afterAll(async () => {
    await app.close()
    await executor.close()
    await services.close()
    await t.drop()
    await rm(dir, { recursive: true, force: true })
  })

  it('reports 0 errors and 0 warnings, with the scheduler entry mounted and left out', async () => {
    expect((await app.inject({ method: 'POST', url: '/api/v1/xxljob/beat' })).statusCode).toBe(200)
    const doc = (await app.inject('/openapi.json')).json()
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/api/'))).toEqual([])

    const file = path.join(dir, 'openapi.json')
    await writeFile(file, JSON.stringify(doc, null, 2))
    const args = [SPECTRAL, 'lint', file, '--ruleset', path.resolve('.spectral.yaml'), '--fail-severity', 'hint']
    const out = path.join(dir, 'spectral.json')
    // one run, two outputs: JSON for the assertion, the CLI's own words for the log
    const printed = await run(process.execPath, [
      ...args,
      '--format',
      'json',
      '--output.json',
      out,
      '--format',
      'stylish',
    ]).catch((err: { stdout: string }) => ({ stdout: err.stdout }))
    const results = JSON.parse(await readFile(out, 'utf8')) as Array<{
      code: string
      path: string[]
      message: string
    }>
    console.info(`spectral lint (spectral:oas): ${printed.stdout.trim()}`)
    expect(results.map((r) => `${r.code} at ${r.path.join('.')}: ${r.message}`)).toEqual([])
  })
})
