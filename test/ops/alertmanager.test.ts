import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse, stringify } from 'yaml'
import { storeCalendarAround } from '../support/calendar-around.js'
import { storeRun } from '../support/chain-runs.js'
import {
  ALERTMANAGER_FILE,
  amtool,
  eventually,
  type PrometheusProcess,
  RULES_FILE,
  startAlertmanager,
  startPrometheus,
} from '../support/prometheus.js'
import { type ServerProcess, startServerProcess } from '../support/server-process.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'

const RUNBOOK_BASE = 'https://git.example/stockplan/blob/main'

interface Notification {
  readonly receiver: string
  readonly path: string
  readonly alerts: { status: string; labels: Record<string, string>; annotations: Record<string, string> }[]
}

describe('the Alertmanager configuration', () => {
  it('passes `amtool check-config`, and the check refuses a broken one', async () => {
    const checked = await amtool(['check-config', ALERTMANAGER_FILE])
    expect(checked.code, checked.output).toBe(0)
    expect(checked.output).toContain('SUCCESS')
    expect(checked.output).toContain('3 inhibit rules')
    const dir = await mkdtemp(path.join(os.tmpdir(), 'stockplan-amtool-'))
    try {
      const broken = parse(await readFile(ALERTMANAGER_FILE, 'utf8')) as { route: { receiver: string } }
      broken.route.receiver = 'nobody'
      await writeFile(path.join(dir, 'broken.yml'), stringify(broken))
      expect((await amtool(['check-config', path.join(dir, 'broken.yml')])).code).toBe(1)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it.each([
    [['severity=critical', 'alertname=StockplanPlanMissing'], 'pager'],
    [['severity=warning', 'alertname=StockplanPlanNotBuilt'], 'desk'],
    [['severity=warning', 'audience=research', 'alertname=StockplanSkillDecay'], 'research'],
    [['severity=warning', 'audience=research', 'alertname=StockplanOutcomesFailed'], 'research'],
  ])('routes %j to %s', async (labels, receiver) => {
    const routed = await amtool(['config', 'routes', 'test', `--config.file=${ALERTMANAGER_FILE}`, ...labels])
    expect(routed.output.trim().split('\n').at(-1)).toBe(receiver)
  })

  it('sends research alerts only in working hours, Shanghai time', async () => {
    const doc = parse(await readFile(ALERTMANAGER_FILE, 'utf8')) as {
      route: { routes: { matchers: string[]; active_time_intervals?: string[] }[] }
      time_intervals: { name: string; time_intervals: Record<string, unknown>[] }[]
    }
    const research = doc.route.routes.find((r) => r.matchers.includes('audience="research"'))
    expect(research?.active_time_intervals).toEqual(['business-hours'])
    expect(doc.time_intervals.find((t) => t.name === 'business-hours')?.time_intervals).toEqual([
      { weekdays: ['monday:friday'], times: [{ start_time: '09:00', end_time: '18:00' }], location: 'Asia/Shanghai' },
    ])
  })
})

/**
 * A real Prometheus scraping the running service with the rules loaded (the `for:` waits cut to seconds in a test
 * copy), notifying a real Alertmanager with ops/alertmanager/alertmanager.yml (its waits cut to a second, its
 * receivers pointed at a webhook this test listens on). An empty store on a known calendar and a failed run: the plan
 * is missing (it pages), the night's "not built" warning is inhibited by it, the failed step pages.
 */
describe('Prometheus to Alertmanager to a receiver, with an inhibition', () => {
  let t: TestDatabase
  let dir: string
  let server: ServerProcess | undefined
  let prometheus: PrometheusProcess | undefined
  let alertmanager: PrometheusProcess | undefined
  let receiver: http.Server | undefined
  const notifications: Notification[] = []
  let due: { expected: string; next: string }

  beforeAll(async () => {
    t = await createTestDatabase()
    due = await storeCalendarAround(t, Date.now())
    const at = Date.now() - 3_600_000
    await storeRun(
      t,
      1,
      [
        [new Date(at).toISOString(), 'build', 'start'],
        [new Date(at + 1000).toISOString(), 'build', 'ok 0 codes'],
        [new Date(at + 1000).toISOString(), 'plan', 'start'],
      ],
      { status: 'failed', step: 'plan', at: new Date(at + 2000).toISOString() },
    )
    dir = await mkdtemp(path.join(os.tmpdir(), 'stockplan-alertmanager-'))
    await mkdir(path.join(dir, 'plan'))

    receiver = http.createServer((req, res) => {
      let body = ''
      req.on('data', (c: Buffer) => {
        body += c.toString()
      })
      req.on('end', () => {
        const parsed = JSON.parse(body) as Omit<Notification, 'path'>
        notifications.push({ ...parsed, path: req.url ?? '' })
        res.end()
      })
    })
    await new Promise<void>((resolve) => receiver!.listen(0, '127.0.0.1', resolve))
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`

    const am = parse(await readFile(ALERTMANAGER_FILE, 'utf8')) as {
      route: Record<string, unknown>
      receivers: { name: string; webhook_configs: { url: string }[] }[]
    }
    Object.assign(am.route, { group_wait: '1s', group_interval: '1s', repeat_interval: '1h' })
    for (const r of am.receivers) r.webhook_configs = [{ ...r.webhook_configs[0]!, url: `${hook}/${r.name}` }]
    await writeFile(path.join(dir, 'alertmanager.yml'), stringify(am))
    alertmanager = await startAlertmanager(path.join(dir, 'alertmanager.yml'), dir)

    // the rules as shipped, their waits in seconds: the inhibited warning and the sentinel later than the page
    const rules = parse(await readFile(RULES_FILE, 'utf8')) as { groups: { rules: Record<string, unknown>[] }[] }
    const waits: Record<string, string> = { StockplanPlanNotBuilt: '3s', StockplanChainStepFailed: '6s' }
    for (const rule of rules.groups.flatMap((g) => g.rules))
      if (rule.alert) Object.assign(rule, { for: waits[rule.alert as string] ?? '0s', keep_firing_for: '0s' })
    await writeFile(path.join(dir, 'rules.yml'), stringify(rules))

    server = await startServerProcess({ DATABASE_URL: t.url, PLAN_DATA_DIR: path.join(dir, 'plan') })
    await writeFile(
      path.join(dir, 'prometheus.yml'),
      stringify({
        global: {
          scrape_interval: '1s',
          scrape_timeout: '900ms',
          evaluation_interval: '1s',
          external_labels: { runbook_base: RUNBOOK_BASE },
        },
        rule_files: [path.join(dir, 'rules.yml')],
        alerting: { alertmanagers: [{ static_configs: [{ targets: [new URL(alertmanager.url).host] }] }] },
        scrape_configs: [{ job_name: 'stockplan', static_configs: [{ targets: [new URL(server.url).host] }] }],
      }),
    )
    prometheus = await startPrometheus(path.join(dir, 'prometheus.yml'), dir)
  })
  afterAll(async () => {
    await prometheus?.stop()
    await alertmanager?.stop()
    if (server && server.child.exitCode === null) {
      server.child.kill('SIGTERM')
      await server.exited
    }
    await new Promise((resolve) => receiver?.close(resolve))
    await t.drop()
    await rm(dir, { recursive: true, force: true })
  })

  const received = (alertname: string) =>
    notifications.find((n) => n.alerts.some((a) => a.labels.alertname === alertname && a.status === 'firing'))

  it('pages the missing plan with its dates and runbook link, and holds back the warning it inhibits', async () => {
    const page = await eventually(
      () => received('StockplanPlanMissing'),
      30_000,
      `the receiver got no StockplanPlanMissing (Prometheus ${prometheus!.url}, Alertmanager ${alertmanager!.url})`,
    )
    expect(page.path).toBe('/pager')
    const alert = page.alerts.find((a) => a.labels.alertname === 'StockplanPlanMissing')!
    expect(alert.labels).toMatchObject({ severity: 'critical', job: 'stockplan', runbook_base: RUNBOOK_BASE })
    expect(alert.annotations.runbook_url).toBe(`${RUNBOOK_BASE}/ops/runbook.md#stockplanplanmissing`)
    expect(alert.annotations.summary).toBe(
      `${new URL(server!.url).host} has no plan for ${due.expected} at 08:45 Asia/Shanghai`,
    )
    expect(alert.annotations.description).toContain('the latest')
    expect(alert.annotations.description).toContain('serves is none')

    // the failed step pages later than the inhibited warning would have been sent: by then it would be here
    const sentinel = await eventually(() => received('StockplanChainStepFailed'), 30_000, 'no StockplanChainStepFailed')
    expect(sentinel.path).toBe('/pager')
    const held = await eventually(
      async () => {
        const res = await fetch(
          `${alertmanager!.url}/api/v2/alerts?${new URLSearchParams({ filter: 'alertname="StockplanPlanNotBuilt"' })}`,
        )
        const alerts = (await res.json()) as { status: { state: string; inhibitedBy: string[] } }[]
        return alerts.length > 0 ? alerts : undefined
      },
      15_000,
      'Alertmanager never got StockplanPlanNotBuilt from Prometheus',
    )
    expect(held.map((a) => a.status.state)).toEqual(['suppressed'])
    expect(held[0]!.status.inhibitedBy.length).toBe(1)
    expect(received('StockplanPlanNotBuilt')).toBeUndefined()
  })
})
