/**
 * Cold start of `stockplan demo --serve` to the first `/health` 200, once the data directory exists
 * (the first run, which generates and imports, is timed separately). Prints figures; asserts nothing.
 *   npx tsx bench/startup.bench.ts [--runs 3 --stocks 800 --days 160]
 */
import { spawn } from 'node:child_process'
import path from 'node:path'
import { freePort } from '../src/storage/embedded-postgres.js'
import { flag, median } from './support.js'

const runs = flag('runs', 3)
const root = path.resolve('var/bench/startup')
const env = {
  ...process.env,
  PG_DATA_DIR: path.join(root, 'pg'),
  PLAN_DATA_DIR: path.join(root, 'plan'),
  DEMO_DATA_DIR: path.join(root, 'demo'),
  DATABASE_URL: '',
  LOG_LEVEL: 'warn',
  HOST: '127.0.0.1',
}
const args = [
  'bin/stockplan.js',
  'demo',
  '--serve',
  '--stocks',
  String(flag('stocks', 800)),
  '--days',
  String(flag('days', 160)),
]

async function startOnce(): Promise<{ ms: number; latest: unknown }> {
  const port = await freePort()
  const started = performance.now()
  const child = spawn(process.execPath, args, { env: { ...env, PORT: String(port) }, stdio: 'ignore' })
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health`)
      const body = (await res.json()) as { ok: boolean; latest_plan_date?: string }
      if (res.status === 200 && body.ok) {
        const ms = performance.now() - started
        child.kill('SIGTERM')
        await new Promise((r) => child.on('exit', r))
        return { ms, latest: body.latest_plan_date }
      }
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 50))
  }
}

const first = await startOnce()
console.log(
  `first run (generate, import, chain for 5 days, serve): ${(first.ms / 1000).toFixed(1)} s, latest_plan_date ${first.latest}`,
)
const times: number[] = []
for (let i = 0; i < runs; i++) times.push((await startOnce()).ms)
console.log(
  `cold start with the data directory present: median ${(median(times) / 1000).toFixed(2)} s (runs: ${times.map((t) => (t / 1000).toFixed(2)).join(', ')} s)`,
)
