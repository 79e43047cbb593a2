import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import path from 'node:path'
import { parse } from 'yaml'

/** Debian's `prometheus` package (installed by `npm test`'s pretest, bin/ensure-test-deps.js). */
export const PROMTOOL = '/usr/bin/promtool'
export const PROMETHEUS = '/usr/bin/prometheus'
/** Debian's `prometheus-alertmanager` package (the same pretest installs it). */
export const ALERTMANAGER = '/usr/bin/prometheus-alertmanager'
export const AMTOOL = '/usr/bin/amtool'

export const OPS = path.resolve('ops')
export const RULES_FILE = path.join(OPS, 'prometheus', 'rules.yml')
export const RULE_TESTS = ['rules.test.yml', 'rules.minutes.test.yml'].map((f) => path.join(OPS, 'prometheus', f))
export const DASHBOARD_FILE = path.join(OPS, 'grafana', 'dashboard.json')
export const RUNBOOK_FILE = path.join(OPS, 'runbook.md')
export const ALERTMANAGER_FILE = path.join(OPS, 'alertmanager', 'alertmanager.yml')

export function requireBinary(file: string): void {
  if (!existsSync(file))
    throw new Error(
      `${file} is missing: run \`npm test\` (its pretest installs Debian's prometheus) or apt-get install prometheus`,
    )
}

/**
 * promtool's exit code and output (it exits 1 on a failed check, which is an answer here, not an error); `input`
 * goes to its stdin (`check metrics` reads the exposition there).
 */
export async function promtool(args: readonly string[], input = ''): Promise<{ code: number; output: string }> {
  return runTool(PROMTOOL, args, input)
}

/** amtool's exit code and output, as promtool's. */
export async function amtool(args: readonly string[]): Promise<{ code: number; output: string }> {
  return runTool(AMTOOL, args, '')
}

async function runTool(
  file: string,
  args: readonly string[],
  input: string,
): Promise<{ code: number; output: string }> {
  requireBinary(file)
  // generous: the day-scale stories take promtool tens of seconds on a busy two-core host
  const child = spawn(file, [...args], { stdio: ['pipe', 'pipe', 'pipe'], timeout: 180_000 })
  let output = ''
  child.stdout.on('data', (c: Buffer) => {
    output += c.toString()
  })
  child.stderr.on('data', (c: Buffer) => {
    output += c.toString()
  })
  child.stdin.end(input)
  const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)))
  return { code, output }
}

export interface Rule {
  readonly record?: string
  readonly alert?: string
  readonly expr: string
  readonly for?: string
  readonly labels?: Record<string, string>
  readonly annotations?: Record<string, string>
}

export async function readRules(file = RULES_FILE): Promise<Rule[]> {
  const doc = parse(await readFile(file, 'utf8')) as { groups: { rules: Rule[] }[] }
  return doc.groups.flatMap((g) => g.rules)
}

interface Panel {
  readonly title?: string
  readonly targets?: { readonly expr?: string }[]
  readonly panels?: Panel[]
}

/** Every query of the dashboard with its panel's title, Grafana's `$job` variable given its default. */
export async function dashboardQueries(file = DASHBOARD_FILE): Promise<{ panel: string; expr: string }[]> {
  const doc = JSON.parse(await readFile(file, 'utf8')) as { panels: Panel[] }
  const out: { panel: string; expr: string }[] = []
  const walk = (panels: readonly Panel[]) => {
    for (const p of panels) {
      for (const t of p.targets ?? [])
        if (t.expr) out.push({ panel: p.title ?? '', expr: t.expr.replaceAll('$job', 'stockplan') })
      walk(p.panels ?? [])
    }
  }
  walk(doc.panels)
  return out
}

const KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'inf',
  'nan',
])
const GROUPING = /\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g

/**
 * The series names a PromQL expression selects: identifiers that are not functions, keywords, label names or
 * numbers. Strings, label matchers, ranges and grouping clauses are cut out first.
 */
export function selectedNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(GROUPING, ' ')
  const names = new Set<string>()
  for (const m of bare.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*/g)) {
    const before = bare[m.index - 1]
    if (before !== undefined && /[0-9.]/.test(before)) continue // 1e9, 5m
    if (
      bare
        .slice(m.index + m[0].length)
        .trimStart()
        .startsWith('(')
    )
      continue // a function
    if (KEYWORDS.has(m[0].toLowerCase())) continue
    names.add(m[0])
  }
  return [...names]
}

/** The sample names of a text exposition (`name{...} value` and `name value` lines). */
export function exposedNames(text: string): Set<string> {
  const names = new Set<string>()
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const name = /^[A-Za-z_:][A-Za-z0-9_:]*/.exec(line)?.[0]
    if (name) names.add(name)
  }
  return names
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

export interface PrometheusProcess {
  readonly url: string
  readonly child: ChildProcess
  readonly output: () => string
  query(expr: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>
  stop(): Promise<void>
}

/** A real Prometheus on a free loopback port with its data in `dir`; resolves once it says it is ready. */
export async function startPrometheus(configFile: string, dir: string, timeoutMs = 15_000): Promise<PrometheusProcess> {
  const port = await freePort()
  return startReady(
    PROMETHEUS,
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    port,
    timeoutMs,
  )
}

/** A real Alertmanager on a free loopback port, not clustered, with its data in `dir`; resolves once it is ready. */
export async function startAlertmanager(
  configFile: string,
  dir: string,
  timeoutMs = 15_000,
): Promise<PrometheusProcess> {
  const port = await freePort()
  return startReady(
    ALERTMANAGER,
    [
      `--config.file=${configFile}`,
      `--storage.path=${path.join(dir, 'alertmanager')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--cluster.listen-address=',
      '--log.level=warn',
    ],
    port,
    timeoutMs,
  )
}

/** Starts `file` and waits for its `/-/ready` on `port` (Prometheus and Alertmanager both answer it). */
async function startReady(
  file: string,
  args: readonly string[],
  port: number,
  timeoutMs: number,
): Promise<PrometheusProcess> {
  requireBinary(file)
  let output = ''
  const child = spawn(file, [...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  child.stdout!.on('data', (c: Buffer) => {
    output += c.toString()
  })
  child.stderr!.on('data', (c: Buffer) => {
    output += c.toString()
  })
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${path.basename(file)} exited early:\n${output}`)
    const res = await fetch(`${url}/-/ready`).catch(() => undefined)
    if (res?.status === 200) break
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`${path.basename(file)} was not ready within ${timeoutMs} ms:\n${output}`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  return {
    url,
    child,
    output: () => output,
    async query(expr) {
      const res = await fetch(`${url}/api/v1/query?${new URLSearchParams({ query: expr })}`)
      const body = (await res.json()) as { status: string; error?: string; data: { result: [] } }
      if (body.status !== 'success') throw new Error(`query ${expr} failed: ${body.error}`)
      return body.data.result
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM')
      await exited
    },
  }
}

/**
 * Polls `check` every 200 ms (a daemon's HTTP API, not a hot loop) until it gives a value or `ms` pass; the error
 * says what was still missing.
 */
export async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  ms: number,
  what: string,
): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`${what} within ${ms} ms`)
    await new Promise((r) => setTimeout(r, 200))
  }
}
