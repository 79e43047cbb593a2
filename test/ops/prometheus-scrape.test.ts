import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { storeCalendarAround } from '../support/calendar-around.js'
import { storeRun } from '../support/chain-runs.js'
import {
  eventually,
  type PrometheusProcess,
  RULES_FILE,
  readRules,
  selectedNames,
  startPrometheus,
} from '../support/prometheus.js'
import { type ServerProcess, startServerProcess } from '../support/server-process.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'

const iso = (ms: number) => new Date(ms).toISOString()

describe('a real Prometheus scraping the running service with the rules loaded', () => {
  let t: TestDatabase
  let dir: string
  let server: ServerProcess | undefined
  let prometheus: PrometheusProcess | undefined
  // a build of 47 s in last night's run, then a plan that failed
  const buildStart = Math.floor(Date.now() / 1000 - 86_400) * 1000

  beforeAll(async () => {
    t = await createTestDatabase()
    // the plan due is known only inside the stored calendar
    await storeCalendarAround(t, Date.now())
    await storeRun(
      t,
      1,
      [
        [iso(buildStart), 'build', 'start'],
        [iso(buildStart + 47_000), 'build', 'ok 0 codes'],
        [iso(buildStart + 47_000), 'plan', 'start'],
      ],
      { status: 'failed', step: 'plan', at: iso(buildStart + 50_000) },
    )
    dir = await mkdtemp(path.join(os.tmpdir(), 'stockplan-prometheus-'))
    await mkdir(path.join(dir, 'plan'))
    server = await startServerProcess({ DATABASE_URL: t.url, PLAN_DATA_DIR: path.join(dir, 'plan') })
    await fetch(`${server.url}/plan`) // the request series of GET /plan exist from the first request
    const config = path.join(dir, 'prometheus.yml')
    await writeFile(
      config,
      [
        'global: { scrape_interval: 1s, scrape_timeout: 900ms, evaluation_interval: 1s }',
        `rule_files: [${JSON.stringify(RULES_FILE)}]`,
        'scrape_configs:',
        '  - job_name: stockplan',
        `    static_configs: [{ targets: [${JSON.stringify(new URL(server.url).host)}] }]`,
        '',
      ].join('\n'),
    )
    prometheus = await startPrometheus(config, dir)
  })
  afterAll(async () => {
    await prometheus?.stop()
    if (server && server.child.exitCode === null) {
      server.child.kill('SIGTERM')
      await server.exited
    }
    await t.drop()
    await rm(dir, { recursive: true, force: true })
  })

  it('answers a query for every series the rules read, and evaluates the rules on them', async () => {
    const prom = prometheus!
    const rules = await readRules()
    const recorded = new Set(rules.filter((r) => r.record).map((r) => r.record!))
    const raw = [...new Set(rules.flatMap((r) => selectedNames(r.expr)))].filter((n) => !recorded.has(n)).sort()
    expect(raw).toContain('stockplan_plan_expected_date_timestamp_seconds')
    expect(raw).toContain('up')
    const missing = await eventually(
      async () => {
        const absent: string[] = []
        for (const name of raw) if ((await prom.query(`${name}{job="stockplan"}`)).length === 0) absent.push(name)
        return absent.length === 0 ? absent : undefined
      },
      15_000,
      `Prometheus (${prom.url}) did not get every series the rules read from ${server!.url}/metrics`,
    )
    expect(missing).toEqual([])

    const value = async (expr: string) => {
      const result = await prom.query(expr)
      return result.length === 1 ? Number(result[0]!.value[1]) : undefined
    }
    expect(await value('up{job="stockplan"}')).toBe(1)
    // a store read slower than its deadline on a busy host reads as down for 10 s: up again at the next read
    await eventually(
      async () => ((await value('stockplan_store_up')) === 1 ? true : undefined),
      15_000,
      'stockplan_store_up never said 1',
    )
    expect(await value('stockplan_chain_step_last_success_duration_seconds{step="build"}')).toBe(47)
    // the recording rules and the alerts run on what was scraped: an empty store has no plan at all, and the run
    // above failed in plan
    const built = await eventually(
      () => value('job_step:stockplan_chain_step_last_success_timestamp_seconds:max{step="build"}'),
      5_000,
      'the recording rule gave no value',
    )
    expect(built).toBe((buildStart + 47_000) / 1000)
    const firing = await eventually(
      async () => {
        const alerts = await prom.query('ALERTS{alertstate="firing"}')
        const names = alerts.map((a) => `${a.metric.alertname}${a.metric.step ? `/${a.metric.step}` : ''}`).sort()
        return names.includes('StockplanPlanMissing') && names.includes('StockplanChainStepFailed/plan')
          ? names
          : undefined
      },
      5_000,
      'the alerts for the missing plan and the failed step did not fire',
    )
    expect(firing).not.toContain('StockplanStoreDown')
    expect(firing).not.toContain('StockplanChainStepFailed/build')
  })
})
