import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMonitoringRepository } from '../../src/storage/monitoring.repository.js'
import { runCli } from '../support/cli-process.js'
import { createDemoDatabase, type DemoMarket } from '../support/demo-market.js'
import { rows } from '../support/queries.js'
import type { TestDatabase } from '../support/test-db.js'

/**
 * `stockplan chain` from the CLI (the runbook's rerun) keeps a run record as the scheduler's runs have, so the
 * chain-step gauges and the alert rules see it: a failure recorded under the step it failed in, a success that clears
 * the step's earlier failure. The scheduler's own child passes --no-record (the scheduler keeps that run).
 */
describe('a CLI chain run leaves a run record', () => {
  let t: TestDatabase
  let demo: DemoMarket
  beforeAll(async () => {
    ;[t, demo] = await createDemoDatabase()
  })
  afterAll(async () => {
    await demo.cleanup()
    await t.drop()
  })

  const chain = (args: string[]) =>
    runCli(['chain', ...args], { ...demo.env, DATABASE_URL: t.url }, { timeoutMs: 120_000 })
  const runs = () =>
    rows(
      t,
      // newest first: the ids count down
      `select log_id::int as id, handler, status, step, params from chain_runs where handler = 'cli:chain' order by log_id`,
    )

  it('records a failure in its step, then a rerun that succeeds, which the step gauges read', async () => {
    const date = demo.planned.at(-1)!
    const saturday = '2026-11-21'
    const failed = await chain(['--date', saturday])
    expect(failed.code, failed.output).toBe(1)
    expect(await runs()).toEqual([
      {
        id: -1,
        handler: 'cli:chain',
        status: 'failed',
        step: 'build',
        params: JSON.stringify({ tradeDate: saturday }),
      },
    ])
    const since = new Date(Date.now() - 3_600_000)
    const afterFailure = await createMonitoringRepository(t.db).chainSteps(since)
    const build = afterFailure.find((s) => s.step === 'build')!
    expect(build.lastFailureAt).toBeDefined()
    expect(build.lastSuccessAt).toBeUndefined()

    const rerun = await chain(['--date', date])
    expect(rerun.code, rerun.output).toBe(0)
    expect((await runs())[0]).toEqual({
      id: -2,
      handler: 'cli:chain',
      status: 'succeeded',
      step: 'outcomes',
      params: JSON.stringify({ tradeDate: date }),
    })
    const lines = await rows(
      t,
      `select step, split_part(text, ' ', 1) as event from chain_run_lines where log_id = -2 order by line_no`,
    )
    expect(lines).toEqual(
      ['build', 'plan', 'push-pool', 'outcomes'].flatMap((step) => [
        { step, event: 'start' },
        { step, event: 'ok' },
      ]),
    )
    const steps = await createMonitoringRepository(t.db).chainSteps(since)
    const rebuilt = steps.find((s) => s.step === 'build')!
    expect(rebuilt.lastSuccessAt!.getTime()).toBeGreaterThan(rebuilt.lastFailureAt!.getTime())
    // no callback for the admin: it never triggered these runs
    expect(await rows(t, 'select count(*)::int as n from callback_outbox')).toEqual([{ n: 0 }])
  })

  it("one step by hand (the runbook's push-pool fix) records its run too, and its success clears its failure", async () => {
    const date = demo.planned.at(-1)!
    // the PMS refuses the pool: a client error fails push-pool at once
    const pms = http.createServer((_req, res) => res.writeHead(400).end('{"detail":"refused"}'))
    await new Promise<void>((r) => pms.listen(0, '127.0.0.1', r))
    const refusing = `http://127.0.0.1:${(pms.address() as AddressInfo).port}/pool`
    const pushPool = (args: string[], env: Record<string, string> = {}) =>
      runCli(['push-pool', ...args], { ...demo.env, DATABASE_URL: t.url, ...env }, { timeoutMs: 120_000 })
    const stepRuns = () =>
      rows(t, `select handler, status, step from chain_runs where handler = 'cli:push-pool' order by log_id desc`)
    const since = new Date(Date.now() - 3_600_000)
    try {
      const failed = await pushPool(['--date', date], { POOL_PUSH_URL: refusing })
      expect(failed.code, failed.output).toBe(1)
    } finally {
      await new Promise((r) => pms.close(r))
    }
    expect(await stepRuns()).toEqual([{ handler: 'cli:push-pool', status: 'failed', step: 'push-pool' }])
    const afterFailure = (await createMonitoringRepository(t.db).chainSteps(since)).find((s) => s.step === 'push-pool')!
    const failedAt = afterFailure.lastFailureAt!.getTime()
    expect(afterFailure.lastSuccessAt === undefined || afterFailure.lastSuccessAt.getTime() < failedAt).toBe(true)

    const rerun = await pushPool(['--date', date])
    expect(rerun.code, rerun.output).toBe(0)
    expect((await stepRuns()).at(-1)).toEqual({ handler: 'cli:push-pool', status: 'succeeded', step: 'push-pool' })
    const after = (await createMonitoringRepository(t.db).chainSteps(since)).find((s) => s.step === 'push-pool')!
    expect(after.lastSuccessAt!.getTime()).toBeGreaterThan(failedAt)

    // neither --no-record (the scheduler's child) nor a run for a past day speaks for tonight's step
    const quiet = await pushPool(['--no-record', '--date', date])
    expect(quiet.code, quiet.output).toBe(0)
    const past = await pushPool(['--date', demo.planned.at(-3)!])
    expect(past.code, past.output).toBe(0)
    expect(await stepRuns()).toHaveLength(2)
  })

  it('keeps none with --no-record, as the scheduler runs it', async () => {
    const before = (await runs()).length
    const run = await chain(['--no-record', '--date', demo.planned.at(-1)!])
    expect(run.code, run.output).toBe(0)
    expect(await runs()).toHaveLength(before)
  })
})
