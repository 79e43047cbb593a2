import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse, stringify } from 'yaml'
import { createOperationalSource, createServices } from '../../src/compose.js'
import { buildApp } from '../../src/http/app.js'
import { createLogger } from '../../src/logger.js'
import { createMetrics } from '../../src/services/metrics.js'
import { testConfig } from '../support/config.js'
import {
  dashboardQueries,
  exposedNames,
  promtool,
  RULE_TESTS,
  RULES_FILE,
  RUNBOOK_FILE,
  type Rule,
  readRules,
  selectedNames,
} from '../support/prometheus.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'

/** Series Prometheus makes itself: not the service's to expose. */
const PROMETHEUS_SERIES = new Set(['up', 'ALERTS', 'ALERTS_FOR_STATE'])

/** The names the rules' and the dashboard's queries select that neither the exposition nor a recording rule gives. */
function unexposed(exprs: readonly string[], exposed: ReadonlySet<string>, recorded: ReadonlySet<string>): string[] {
  const used = new Set(exprs.flatMap(selectedNames))
  return [...used].filter((n) => !exposed.has(n) && !recorded.has(n) && !PROMETHEUS_SERIES.has(n)).sort()
}

describe('the alert rules, their unit tests and the dashboard, checked by promtool', () => {
  let rules: Rule[]
  let dir: string
  beforeAll(async () => {
    rules = await readRules()
    dir = await mkdtemp(path.join(os.tmpdir(), 'stockplan-rules-'))
  })
  afterAll(async () => rm(dir, { recursive: true, force: true }))

  it('passes `promtool check rules`', async () => {
    const checked = await promtool(['check', 'rules', RULES_FILE])
    expect(checked.output).toContain('SUCCESS')
    expect(checked.code, checked.output).toBe(0)
  })

  it('passes its unit tests (`promtool test rules`)', async () => {
    // one promtool per file, side by side: the day-scale file is the slow one
    for (const tested of await Promise.all(RULE_TESTS.map((file) => promtool(['test', 'rules', file])))) {
      expect(tested.code, tested.output).toBe(0)
      expect(tested.output).toContain('SUCCESS')
    }
  }, 180_000)

  it('fails a unit test when a rule misses the holiday: staleness of the latest plan instead of the expected date', async () => {
    const doc = parse(await readFile(RULES_FILE, 'utf8')) as { groups: { name: string; rules: Rule[] }[] }
    for (const rule of doc.groups.flatMap((g) => g.rules))
      if (rule.alert === 'StockplanPlanMissing')
        Object.assign(rule, {
          expr: 'time() - max by (job) (stockplan_plan_latest_date_timestamp_seconds) > 86400 + 17 * 3600',
        })
    await writeFile(path.join(dir, 'rules.yml'), stringify(doc))
    const tests = parse(await readFile(RULE_TESTS[0]!, 'utf8')) as { tests: { name: string }[] }
    tests.tests = tests.tests.filter((t) => t.name === 'the 2025 National Day week')
    expect(tests.tests).toHaveLength(1)
    await writeFile(path.join(dir, 'holiday.test.yml'), stringify(tests))
    const tested = await promtool(['test', 'rules', path.join(dir, 'holiday.test.yml')])
    expect(tested.code).toBe(1)
    expect(tested.output).toContain('alertname: StockplanPlanMissing')
    // the same story passes with the rules as they are
    await writeFile(path.join(dir, 'rules.yml'), await readFile(RULES_FILE, 'utf8'))
    expect((await promtool(['test', 'rules', path.join(dir, 'holiday.test.yml')])).code).toBe(0)
  }, 180_000)

  it('tests every alert both firing and staying silent', async () => {
    const cases = new Map<string, { fires: number; silent: number }>()
    for (const file of RULE_TESTS) {
      const doc = parse(await readFile(file, 'utf8')) as {
        tests: { alert_rule_test?: { alertname: string; exp_alerts?: unknown[] }[] }[]
      }
      for (const test of doc.tests)
        for (const c of test.alert_rule_test ?? []) {
          const seen = cases.get(c.alertname) ?? { fires: 0, silent: 0 }
          if ((c.exp_alerts ?? []).length > 0) seen.fires++
          else seen.silent++
          cases.set(c.alertname, seen)
        }
    }
    const alerts = rules.filter((r) => r.alert).map((r) => r.alert!)
    expect(alerts.length).toBeGreaterThanOrEqual(10)
    for (const alert of alerts) {
      expect(cases.get(alert)?.fires, `${alert} fires in some test`).toBeGreaterThan(0)
      expect(cases.get(alert)?.silent, `${alert} stays silent in some test`).toBeGreaterThan(0)
    }
  })

  it('gives every alert a severity, a summary and a runbook link from the one configurable base', async () => {
    const runbook = await readFile(RUNBOOK_FILE, 'utf8')
    const anchors = new Set(
      [...runbook.matchAll(/^## (.+)$/gm)].map((m) => m[1]!.toLowerCase().replace(/[^a-z0-9]+/g, '-')),
    )
    for (const rule of rules.filter((r) => r.alert)) {
      expect(['critical', 'warning'], rule.alert).toContain(rule.labels?.severity)
      expect(rule.annotations?.summary, rule.alert).toBeTruthy()
      const link = /^\{\{ \$externalLabels\.runbook_base \}\}\/ops\/runbook\.md#([a-z0-9-]+)$/.exec(
        rule.annotations?.runbook_url ?? '',
      )
      expect(link, `${rule.alert}: runbook_url ${rule.annotations?.runbook_url}`).not.toBeNull()
      expect(anchors.has(link![1]!), `${rule.alert}: runbook has no entry #${link![1]}`).toBe(true)
    }
    // severities by consequence: what the research desk reads is never a page
    const research = rules.filter((r) => r.labels?.audience === 'research').map((r) => r.alert)
    expect(research.sort()).toEqual(['StockplanDrawdown', 'StockplanOutcomesFailed', 'StockplanSkillDecay'])
    for (const rule of rules.filter((r) => r.labels?.audience === 'research'))
      expect(rule.labels?.severity, rule.alert).toBe('warning')
  })

  it('names every recording rule level:metric:operations, its level the labels it keeps', () => {
    for (const rule of rules.filter((r) => r.record)) {
      const [level, metric, operations] = rule.record!.split(':')
      expect(['job', 'job_step', 'instance'], rule.record).toContain(level)
      expect(metric, rule.record).toMatch(/^stockplan_[a-z0-9_]+$/)
      expect(operations, rule.record).toMatch(/^[a-z0-9_]+$/)
      if (level === 'job_step') expect(rule.expr, rule.record).toMatch(/by \(job, step\)/)
    }
  })

  it('parses every dashboard query (each written as a recording rule for `promtool check rules`)', async () => {
    const queries = await dashboardQueries()
    expect(queries.length).toBeGreaterThanOrEqual(15)
    const file = path.join(dir, 'dashboard-queries.yml')
    const asRules = queries.map((q, i) => ({ record: `dashboard:query_${i}`, expr: q.expr }))
    await writeFile(file, stringify({ groups: [{ name: 'dashboard', rules: asRules }] }))
    const checked = await promtool(['check', 'rules', file])
    expect(checked.code, checked.output).toBe(0)
    expect(checked.output).toContain(`SUCCESS: ${queries.length} rules found`)
    // and the same check refuses a query Prometheus cannot parse
    await writeFile(
      file,
      stringify({ groups: [{ name: 'dashboard', rules: [{ record: 'x:y', expr: 'sum(rate(a[5m])' }] }] }),
    )
    expect((await promtool(['check', 'rules', file])).code).toBe(1)
  })

  it('shows dates as dates on a green background when all is well, and "never" for a moment that never was', async () => {
    interface Field {
      unit?: string
      mappings?: { options: Record<string, unknown> }[]
      thresholds?: { steps: { color: string; value: number | null }[] }
    }
    interface DashboardPanel {
      title: string
      type: string
      options?: { colorMode?: string }
      fieldConfig?: { defaults: Field; overrides: { properties: { id: string; value: unknown }[] }[] }
    }
    const doc = JSON.parse(await readFile(path.resolve('ops/grafana/dashboard.json'), 'utf8')) as {
      panels: DashboardPanel[]
    }
    const dated = doc.panels.filter((p) => /^(time:|dateTime)/.test(p.fieldConfig?.defaults.unit ?? ''))
    expect(dated.map((p) => p.title).sort()).toEqual([
      'Latest published plan',
      'Oldest incomplete synced day',
      'Plan expected now',
    ])
    for (const panel of dated) {
      expect(panel.fieldConfig!.defaults.unit, panel.title).toBe('time:YYYY-MM-DD')
      // a background coloured by thresholds it does not have is always red
      if (panel.options?.colorMode === 'background')
        expect(panel.fieldConfig!.defaults.thresholds?.steps.length, panel.title).toBeGreaterThan(0)
      expect(panel.fieldConfig!.defaults.mappings?.length, `${panel.title}: 0 or NaN in words`).toBeGreaterThan(0)
    }
    // a date of 0 (a plan never published) reads "never", not 1970-01-01, and is the only red one
    const latest = dated.find((p) => p.title === 'Latest published plan')!.fieldConfig!.defaults
    expect(latest.mappings![0]!.options['0']).toMatchObject({ text: 'never' })
    expect(latest.thresholds!.steps).toEqual([
      { color: 'red', value: null },
      { color: 'green', value: 1 },
    ])
    const timeline = doc.panels.find((p) => p.title === 'Chain timeline')!
    const properties = timeline.fieldConfig!.overrides.flatMap((o) => o.properties)
    expect(properties).toContainEqual({
      id: 'mappings',
      value: [{ type: 'value', options: { 0: { text: 'never', index: 0 } } }],
    })
  })

  it('names every series by Prometheus conventions (`promtool check metrics` on the service exposition)', async () => {
    const text = await exposition()
    const lines = text.split('\n')
    // one naming scheme: every series of the service's own under stockplan_ (process_* and nodejs_* are prom-client's)
    const names = [...exposedNames(text)]
    expect(names.filter((n) => !/^(stockplan_|process_|nodejs_)/.test(n))).toEqual([])
    const linted = await promtool(['check', 'metrics'], `${text}\n`)
    const problems = linted.output.split('\n').filter((l) => l.trim() !== '')
    expect(problems).toEqual([])
    expect(lines.filter((l) => l.startsWith('stockplan_')).length).toBeGreaterThan(20)
    // and the lint has teeth: a counter without `_total` is named as a problem
    const bad = await promtool(
      ['check', 'metrics'],
      '# HELP stockplan_fallbacks Fallbacks\n# TYPE stockplan_fallbacks counter\nstockplan_fallbacks 1\n',
    )
    expect(bad.output).toMatch(/counter metrics should have "_total" suffix/)
  })

  describe('every series a rule or panel reads is one /metrics exposes', () => {
    it("finds them all in a running app's exposition", async () => {
      const text = await exposition()
      const exprs = [...rules.map((r) => r.expr), ...(await dashboardQueries()).map((q) => q.expr)]
      const recorded = new Set(rules.filter((r) => r.record).map((r) => r.record!))
      expect(unexposed(exprs, exposedNames(text), recorded)).toEqual([])
      // the derivation finds what it must: the plan dates, a histogram's buckets, the recording rules' inputs
      const used = new Set(exprs.flatMap(selectedNames))
      for (const name of [
        'stockplan_plan_latest_date_timestamp_seconds',
        'stockplan_chain_step_last_failure_timestamp_seconds',
        'stockplan_http_request_duration_seconds_bucket',
        'stockplan_http_requests_total',
        'job:stockplan_plan_behind_seconds:max',
        'up',
      ])
        expect(used, name).toContain(name)
    })

    it('fails on a renamed metric', async () => {
      const text = (await exposition()).replaceAll('stockplan_store_up', 'stockplan_store_reachable')
      const recorded = new Set(rules.filter((r) => r.record).map((r) => r.record!))
      expect(
        unexposed(
          rules.map((r) => r.expr),
          exposedNames(text),
          recorded,
        ),
      ).toEqual(['stockplan_store_up'])
    })

    it('fails on a recording rule a query reads that the rules do not define', () => {
      expect(unexposed(['job:stockplan_plan_behind_seconds:max > 0'], new Set(), new Set())).toEqual([
        'job:stockplan_plan_behind_seconds:max',
      ])
    })
  })
})

let t: TestDatabase | undefined
let text: string | undefined

/** The /metrics of the real app over an empty test database, after one GET /plan (so the request series exist). */
async function exposition(): Promise<string> {
  if (text !== undefined) return text
  t = await createTestDatabase()
  const dir = await mkdtemp(path.join(os.tmpdir(), 'stockplan-exposition-'))
  const config = testConfig({ PLAN_DATA_DIR: dir })
  const services = createServices(config, createLogger(config), t)
  const metrics = createMetrics({ defaults: false })
  metrics.setOperationalSource(createOperationalSource(services))
  const app = await buildApp({ ...services, metrics })
  try {
    await app.inject('/plan')
    text = (await app.inject('/metrics')).body
    return text
  } finally {
    await app.close()
    await services.close()
    await t.drop()
    await rm(dir, { recursive: true, force: true })
  }
}
