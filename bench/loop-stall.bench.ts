/**
 * The longest event-loop stall while the server's long work runs in this process: the build, plan and push-pool
 * jobs (as when XXL-JOB triggers the chain in-process), a live assembly of GET /plan, a snapshot read, a
 * POST /plan/refresh, and 1000-code /plan/verdict and /logic_state requests, cold (first for the date), warm
 * and eight at once. A 5 ms timer measures
 * each stall twice: wall time (includes waiting for a CPU on a busy machine) and the process CPU spent during it
 * (what this process itself blocked the loop with). The GETs come over a real socket from a client process of their
 * own (bench/request-client.ts): with `inject`, the client's work on a 1 MB body ran in this loop and counted as the
 * server's stall. Prints figures; asserts nothing.
 *   npx tsx bench/loop-stall.bench.ts [--stocks 800 --days 320 --repeat 5]   (the demo's size by default)
 * BENCH_SERVICE_ROOT=<another checkout> measures that checkout's service code instead (before/after in one run).
 */
import { fork } from 'node:child_process'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import type { createServices as CreateServices } from '../src/compose.js'
import type { buildApp as BuildApp } from '../src/http/app.js'
import type { createLogger as CreateLogger } from '../src/logger.js'
import { benchMarket, ensurePlanned, flag, median, thousandCodeQuery } from './support.js'

const root = path.resolve(process.env.BENCH_SERVICE_ROOT ?? '.')
const { createServices } = (await import(path.join(root, 'src/compose.ts'))) as {
  createServices: typeof CreateServices
}
const { buildApp } = (await import(path.join(root, 'src/http/app.ts'))) as { buildApp: typeof BuildApp }
const { createLogger } = (await import(path.join(root, 'src/logger.ts'))) as { createLogger: typeof CreateLogger }

const m = await benchMarket({}, { stocks: 800, days: 320 })
const signal = new AbortController().signal
await ensurePlanned(m, [m.lastDate], signal)
const log = createLogger({ logLevel: 'warn' })
const services = createServices(m.config, log, m.store)
const live = createServices({ ...m.config, planFromSnapshot: false, planCacheSec: 0 }, log, m.store)
const app = await buildApp(services)

let worstWall = 0
let worstCpu = 0
let last = performance.now()
let lastCpu = process.cpuUsage()
const timer = setInterval(() => {
  const now = performance.now()
  const cpu = process.cpuUsage()
  const gap = now - last - 5
  const cpuMs = (cpu.user - lastCpu.user + cpu.system - lastCpu.system) / 1000
  worstWall = Math.max(worstWall, gap)
  worstCpu = Math.max(worstCpu, Math.min(gap, cpuMs))
  last = now
  lastCpu = cpu
}, 5)

/**
 * Runs `work` `repeat` times (`before` each time, outside the measurement) and prints how long it took and the
 * longest stall it caused: with repeats, the median and the maximum over the runs.
 */
async function stall(
  label: string,
  work: () => Promise<unknown>,
  options: { repeat?: number; before?: () => void } = {},
): Promise<void> {
  const runs: Array<{ took: number; wall: number; cpu: number }> = []
  for (let i = 0; i < (options.repeat ?? 1); i++) {
    options.before?.()
    await new Promise((r) => setTimeout(r, 20))
    worstWall = 0
    worstCpu = 0
    const started = performance.now()
    await work()
    const took = performance.now() - started
    await new Promise((r) => setTimeout(r, 10)) // let the timer see the end
    runs.push({ took, wall: worstWall, cpu: worstCpu })
  }
  const ms = (xs: number[]) =>
    (xs.length === 1 ? xs[0]!.toFixed(0) : `${median(xs).toFixed(0)} (max ${Math.max(...xs).toFixed(0)})`).padStart(4)
  console.log(
    `${label.padEnd(44)} ${ms(runs.map((r) => r.took))} ms; longest stall ${ms(runs.map((r) => r.wall))} ms wall, ` +
      `${ms(runs.map((r) => r.cpu))} ms of this process's CPU`,
  )
}

const { query } = await thousandCodeQuery(m)

// requests come over a real socket from a client process of their own (bench/request-client.ts)
const client = fork(path.join(import.meta.dirname, 'request-client.ts'), { execArgv: ['--import', 'tsx'] })
await new Promise((resolve) => client.once('message', resolve))
const asked = new Map<number, (answer: { statuses?: number[]; error?: string }) => void>()
client.on('message', (answer: { id: number; statuses?: number[]; error?: string }) => asked.get(answer.id)?.(answer))
let askId = 0
let base = ''
/** `count` GETs of `url` at once, from the client process; throws unless each is answered 200. */
const getMany = async (url: string, count: number) => {
  const id = ++askId
  const answer = await new Promise<{ statuses?: number[]; error?: string }>((resolve) => {
    asked.set(id, resolve)
    client.send({ id, url: `${base}${url}`, count })
  })
  asked.delete(id)
  if (answer.error || answer.statuses?.some((s) => s !== 200))
    throw new Error(`${url.slice(0, 60)}: ${answer.error ?? answer.statuses?.join(',')}`)
}
const get = (url: string) => getMany(url, 1)

console.log(`service code from ${root}; market ${path.basename(path.dirname(m.config.pgDataDir))}, date ${m.lastDate}`)
// booting the app (plugins, routes, schemas) is what `listen` does before the server takes requests
await stall('app ready (before listening)', async () => {
  await app.ready()
})
await app.listen({ port: 0, host: '127.0.0.1' })
base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
await stall('first request through the app (GET /health)', () => get('/health'))
await stall(`build ${m.lastDate}`, () => services.steps.build({ date: m.lastDate }, signal))
await stall('plan job', () => services.steps.plan({ date: m.lastDate }, signal))
await stall('push-pool job', () => services.steps['push-pool']({ date: m.lastDate }, signal))
const sizes = { top: 20, obs_top: 10, theme_cap: 5 }
await stall('live assembly (snapshot off, cache off)', () =>
  live.plans.getPlan({ date: m.lastDate, sizes, nocache: true }),
)
await stall('snapshot read (nocache=1)', () => services.plans.getPlan({ date: m.lastDate, sizes, nocache: true }))
await stall('POST /plan/refresh', async () => {
  const res = await app.inject({ method: 'POST', url: `/plan/refresh?date=${m.lastDate}` }) // a small answer
  if (res.statusCode !== 200) throw new Error(`/plan/refresh: ${res.statusCode}`)
})
const repeat = flag('repeat', 5)
// "first": the date's entries are computed (the kept ones are cleared before each run)
await stall(`GET /plan/verdict 1000 codes, first (${repeat} runs)`, () => get(`/plan/verdict?${query}`), {
  repeat,
  before: () => services.verdicts.clear(),
})
await stall('GET /plan/verdict 1000 codes, again', () => get(`/plan/verdict?${query}`))
await stall(`GET /logic_state 1000 codes, first (${repeat} runs)`, () => get(`/logic_state?${query}`), {
  repeat,
  before: () => services.logicStates.clear(),
})
await stall('GET /logic_state 1000 codes, again', () => get(`/logic_state?${query}`))
await stall(`8 x GET /plan/verdict 1000 codes at once (${repeat} runs)`, () => getMany(`/plan/verdict?${query}`, 8), {
  repeat,
})
await stall(`8 x GET /logic_state 1000 codes at once (${repeat} runs)`, () => getMany(`/logic_state?${query}`, 8), {
  repeat,
})
clearInterval(timer)
client.kill()
await app.close()
await live.close()
await services.close()
await m.services.close()
await m.store.close()
