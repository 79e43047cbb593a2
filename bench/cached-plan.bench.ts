/**
 * Cached GET /plan against the stack's floor, measured as CPU per request. Three servers, each in its own process,
 * send the same bytes: a bare `node:http` server (a Buffer), a bare Fastify route (a Buffer), and the service
 * itself (`stockplan serve`, its real logging: LOG_LEVEL=info, the access line of every request written to a file, on
 * tmpfs where the machine has /dev/shm, or in BENCH_LOG_DIR).
 * `wrk` loads each one in turn from its own process; the server's CPU time per request is read from
 * /proc/<pid>/stat around the run, wrk's own CPU from `times` (it must stay below the server's, or the load
 * generator is the bottleneck). Several rounds, the order of the servers rotated each round; prints the median
 * and spread of CPU µs per request, of its ratio to bare node within the same round, and req/s. Asserts nothing.
 *
 *   npx tsx bench/cached-plan.bench.ts [--stocks 800 --days 160 --rounds 5 --seconds 8 --connections 50 --profile]
 *
 * --line-off adds the same service with LOG_LEVEL=warn ("service, no access line") and bare node writing the plan's
 * access line through the service's logger ("bare node:http + access line"): what the spec's access line costs.
 *
 * BENCH_BEFORE_ROOT=<another checkout, e.g. an export of main with node_modules linked> adds that checkout's
 * service, "service, before", measured in the same rounds. If that checkout cannot migrate the bench database,
 * BENCH_BEFORE_DATABASE_URL and BENCH_BEFORE_PLAN_DATA_DIR give it a store of its own (import the same
 * var/bench/800x160/csv and run its chain for the same date first); its plan then differs in size, so one more
 * server, bare node sending that checkout's bytes, is its floor for the ratio.
 *
 * Each server (all its threads) is pinned to CPU 0 and wrk to CPU 1 (`taskset`), so that neither migrates or
 * competes for the other's core; --no-pin leaves placement to the kernel.
 *
 * --together loads all the servers at once in each round (they share CPU 0, their wrk processes CPU 1): their
 * figures are then taken over the same seconds, so a slow spell of the host (this VM's neighbours can move one
 * server's figure 30 % between rounds) weighs on all of them alike. Each server gets a share of the core, so the µs
 * per request are higher than one at a time (context switches, shared caches); read the ratios.
 *
 * --fresh starts every server again before each round (a new process, warmed up again): the same code in two
 * processes can differ by 15-35 % for as long as they live (seen here: a service process measured 1.37-1.60x bare
 * node round after round while three fresh ones of the same build measured 1.12-1.25x in the same rounds), so a
 * run that keeps one process per server measures that process's luck as much as the code. Each round then
 * samples a new process of each server; the spread shows the luck.
 *
 * Ports: BENCH_PORT (default 8370) for the service, the next six for the others, 10 and up above it for --ladder.
 * --profile runs the servers under --cpu-prof (slower: the figures are then for reading the profiles, not for the
 * table) and prints where each one's CPU went under load, by package and by function.
 */
import { type ChildProcess, execFile } from 'node:child_process'
import { createReadStream, existsSync } from 'node:fs'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { isDeepStrictEqual, promisify } from 'node:util'
import { summariseProfile } from './cpu-profile.js'
import { benchMarket, ensurePlanned, flag, median, startProcess, stopProcess } from './support.js'

const run = promisify(execFile)
const rounds = flag('rounds', 5)
const seconds = flag('seconds', 8)
const connections = flag('connections', 50)
const profile = process.argv.includes('--profile')
const ladder = process.argv.includes('--ladder')
const pin = !process.argv.includes('--no-pin')
const lineOff = process.argv.includes('--line-off')
const together = process.argv.includes('--together')
const fresh = process.argv.includes('--fresh')
/** bench/servers/fastify-ladder.ts's steps: the service's pieces added one at a time onto bare Fastify. */
const LADDER = [
  'bare Fastify',
  '+ pino access line',
  '+ service options',
  '+ query schema',
  '+ query checks',
  '+ onResponse hook',
  '+ error handler',
  '+ process metrics',
  '+ swagger, resp schema',
]
const basePort = Number(process.env.BENCH_PORT ?? 8370)
const CLK_TCK = Number((await run('getconf', ['CLK_TCK'])).stdout.trim())

const market = await benchMarket({}, { stocks: 800, days: 160 })
await ensurePlanned(market, [market.lastDate], new AbortController().signal)
const work = path.resolve('var/bench/cached-plan')
await rm(work, { recursive: true, force: true })
await mkdir(work, { recursive: true })
// the access lines go to a file on tmpfs where there is one: hundreds of MB written to a disk-backed file make the
// kernel's writeback threads compete with the pinned servers, and the later rounds read 20-40 % higher than the first
const logDir = process.env.BENCH_LOG_DIR ?? (existsSync('/dev/shm') ? '/dev/shm/stockplan-cached-plan' : work)
await rm(logDir, { recursive: true, force: true })
await mkdir(logDir, { recursive: true })
const stdoutOf = (server: string): string => path.join(logDir, `${server.replace(/[^a-z]+/gi, '-')}-stdout.ndjson`)
const isService = (server: string): boolean => server.startsWith('service')
const profDirOf = (server: string): string => path.join(work, 'prof', server.replace(/[^a-z]+/gi, '-'))

interface Server {
  readonly name: string
  readonly url: string
  readonly child: ChildProcess
  /** The same server in a new process (this one stopped first). */
  readonly again: () => Promise<Server>
}

async function start(
  name: string,
  port: number,
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<Server> {
  const child = await startProcess(script, args, env, {
    ready: `http://127.0.0.1:${port}/plan`,
    stdout: isService(name) || name.startsWith('ladder') || name.endsWith('+ access line') ? stdoutOf(name) : undefined,
    execArgv: profile ? ['--cpu-prof', '--cpu-prof-dir', profDirOf(name)] : [],
  })
  if (pin) await run('taskset', ['-a', '-c', '-p', '0', String(child.pid)])
  const again = async () => {
    await stopProcess(child)
    return start(name, port, script, args, env)
  }
  return { name, url: `http://127.0.0.1:${port}/plan`, child, again }
}

/** User and system CPU time of a process (all its threads) and of its main thread alone, in microseconds. */
async function cpuMicros(pid: number): Promise<{ user: number; sys: number; main: number }> {
  const times = (stat: string) => {
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return { user: (Number(fields[11]) / CLK_TCK) * 1e6, sys: (Number(fields[12]) / CLK_TCK) * 1e6 }
  }
  const all = times(await readFile(`/proc/${pid}/stat`, 'utf8'))
  const main = times(await readFile(`/proc/${pid}/task/${pid}/stat`, 'utf8'))
  return { ...all, main: main.user + main.sys }
}

interface Round {
  readonly requests: number
  readonly rps: number
  readonly serverUs: number
  /** The part of serverUs spent in the kernel (socket and file writes). */
  readonly serverSysUs: number
  /** The part of serverUs spent in other threads than the main one (GC helpers, libuv's pool). */
  readonly serverOtherThreadsUs: number
  readonly serverCpu: number
  readonly wrkCpu: number
  readonly non2xx: number
}

const nowMicros = (): number => Number(process.hrtime.bigint() / 1000n)
/** When each server was under measured load, for reading its profile without start-up and warm-up. */
const loadWindows = new Map<string, Array<[number, number]>>()

async function load(server: Server, secs: number, measured = true): Promise<Round> {
  const pid = server.child.pid!
  const before = await cpuMicros(pid)
  const started = performance.now()
  const from = nowMicros()
  // `times` prints the children's user and system time: wrk's own CPU
  const wrk = `${pin ? 'taskset -c 1 ' : ''}wrk -t1 -c${connections} -d${secs}s ${server.url}`
  const { stdout } = await run('bash', ['-c', `${wrk} && times`])
  const wall = (performance.now() - started) / 1000
  if (measured) loadWindows.set(server.name, [...(loadWindows.get(server.name) ?? []), [from, nowMicros()]])
  const after = await cpuMicros(pid)
  const sys = after.sys - before.sys
  const used = after.user - before.user + sys
  const requests = Number(/(\d+) requests in/.exec(stdout)?.[1] ?? Number.NaN)
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0)
  const times = [...stdout.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]))
  const wrkCpu = (times[2] ?? Number.NaN) + (times[3] ?? Number.NaN)
  return {
    requests,
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? Number.NaN),
    serverUs: used / requests,
    serverSysUs: sys / requests,
    serverOtherThreadsUs: (used - (after.main - before.main)) / requests,
    serverCpu: used / 1e6 / wall,
    wrkCpu: wrkCpu / wall,
    non2xx,
  }
}

const env = { ...process.env, LOG_LEVEL: 'info', HOST: '127.0.0.1' }
// BENCH_SERVICE_ROOT: another checkout's service (e.g. an export of main), for the figures before a change
const serviceRoot = process.env.BENCH_SERVICE_ROOT ?? '.'
const serviceEnv = (port: number) => ({
  ...env,
  PORT: String(port),
  DATABASE_URL: market.store.url,
  PLAN_DATA_DIR: market.config.planDataDir,
  PG_DATA_DIR: market.config.pgDataDir,
})
const service = await start(
  'service',
  basePort,
  path.join(serviceRoot, 'bin/stockplan.js'),
  ['serve'],
  serviceEnv(basePort),
)
const body = Buffer.from(await (await fetch(service.url)).arrayBuffer())
const bodyFile = path.join(work, 'plan.json')
await writeFile(bodyFile, body)
const beforeRoot = process.env.BENCH_BEFORE_ROOT
// a checkout whose migrations differ from this one's cannot share the bench database: give it its own, imported and
// planned by that checkout from the same CSV files (var/bench/<size>/csv)
const beforeStore = {
  ...(process.env.BENCH_BEFORE_DATABASE_URL && { DATABASE_URL: process.env.BENCH_BEFORE_DATABASE_URL }),
  ...(process.env.BENCH_BEFORE_PLAN_DATA_DIR && { PLAN_DATA_DIR: process.env.BENCH_BEFORE_PLAN_DATA_DIR }),
}
const servers: Server[] = [
  await start('bare node:http', basePort + 1, 'bench/servers/bare-node.ts', [String(basePort + 1), bodyFile], env),
  await start('bare Fastify', basePort + 2, 'bench/servers/bare-fastify.ts', [String(basePort + 2), bodyFile], env),
  service,
  ...(ladder
    ? await Promise.all(
        LADDER.map((step, i) =>
          start(
            `ladder ${i} ${step}`,
            basePort + 10 + i,
            'bench/servers/fastify-ladder.ts',
            [String(basePort + 10 + i), bodyFile, String(i)],
            env,
          ),
        ),
      )
    : []),
  ...(lineOff
    ? [
        await start(
          'bare node:http + access line',
          basePort + 5,
          'bench/servers/bare-node-line.ts',
          [String(basePort + 5), bodyFile],
          env,
        ),
        await start('service, no access line', basePort + 4, path.join(serviceRoot, 'bin/stockplan.js'), ['serve'], {
          ...serviceEnv(basePort + 4),
          LOG_LEVEL: 'warn',
        }),
      ]
    : []),
  ...(beforeRoot
    ? [
        await start('service, before', basePort + 3, path.join(beforeRoot, 'bin/stockplan.js'), ['serve'], {
          ...serviceEnv(basePort + 3),
          ...beforeStore,
        }),
      ]
    : []),
]
/** Each server's floor: bare node sending the same bytes (another checkout with a store of its own plans otherwise). */
const floorOf = new Map<string, string>()
for (const s of [...servers]) {
  const other = Buffer.from(await (await fetch(s.url)).arrayBuffer())
  if (s.name === 'service, before' && Object.keys(beforeStore).length > 0) {
    const otherFile = path.join(work, 'plan-before.json')
    await writeFile(otherFile, other)
    const floor = "bare node:http, before's bytes"
    const args = [String(basePort + 6), otherFile]
    servers.push(await start(floor, basePort + 6, 'bench/servers/bare-node.ts', args, env))
    floorOf.set(s.name, floor)
    console.log(`service, before: its own plan, ${other.length} bytes, measured against bare node sending them`)
    continue
  }
  // another checkout may order the keys differently: the same plan, the same size
  const same =
    s.name === 'service, before'
      ? other.length === body.length && isDeepStrictEqual(JSON.parse(other.toString()), JSON.parse(body.toString()))
      : other.equals(body)
  if (!same) throw new Error(`${s.name} does not send the same bytes`)
}
console.log(
  `cached GET /plan, ${body.length} bytes; wrk -t1 -c${connections}, ${rounds} rounds x ${seconds} s per server` +
    `${pin ? ', servers on CPU 0 and wrk on CPU 1' : ''}${together ? ', all servers loaded at once' : ''}` +
    `${fresh ? ', a new process of each server every round' : ''}` +
    `${profile ? ' (servers under --cpu-prof)' : ''}`,
)

/** One round: each server in turn, or all at once (--together). */
async function loadRound(order: Server[]): Promise<Round[]> {
  if (together) return Promise.all(order.map((s) => load(s, seconds)))
  const measured: Round[] = []
  for (const s of order) measured.push(await load(s, seconds))
  return measured
}

for (const s of servers) await load(s, 2, false) // warm-up: JIT, connection set-up
const results = new Map<string, Round[]>(servers.map((s) => [s.name, []]))
for (let r = 0; r < rounds; r++) {
  if (fresh && r > 0) {
    for (let i = 0; i < servers.length; i++) servers[i] = await servers[i]!.again()
    for (const s of servers) await load(s, 2, false)
  }
  const order = servers.map((_, i) => servers[(i + r) % servers.length]!)
  const line: string[] = []
  const measured = await loadRound(order)
  order.forEach((s, i) => {
    const result = measured[i]!
    results.get(s.name)!.push(result)
    line.push(
      `${s.name} ${result.serverUs.toFixed(1)} µs (sys ${result.serverSysUs.toFixed(1)}, other threads ${result.serverOtherThreadsUs.toFixed(1)})`,
    )
  })
  console.log(`round ${r + 1}: ${line.join(', ')}`)
}

const spread = (xs: number[], digits: number): string =>
  `${median(xs).toFixed(digits)} [${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}]`
console.log(
  `\n${'server'.padEnd(32)} CPU µs/req (median [min–max])  ratio to bare node   req/s          server CPU  wrk CPU  non-2xx`,
)
for (const s of servers) {
  const rs = results.get(s.name)!
  const baseline = results.get(floorOf.get(s.name) ?? 'bare node:http')!
  const ratios = rs.map((x, i) => x.serverUs / baseline[i]!.serverUs)
  console.log(
    `${s.name.padEnd(32)} ${spread(
      rs.map((x) => x.serverUs),
      1,
    ).padEnd(30)} ${spread(ratios, 2).padEnd(20)} ${spread(
      rs.map((x) => x.rps),
      0,
    ).padEnd(14)} ${(median(rs.map((x) => x.serverCpu)) * 100).toFixed(0).padStart(7)} %  ${(
      median(rs.map((x) => x.wrkCpu)) * 100
    )
      .toFixed(0)
      .padStart(5)} %  ${rs.reduce((n, x) => n + x.non2xx, 0)}`,
  )
}
if (ladder) {
  // each step against the one below it, paired within a round
  console.log(`\n${'ablation ladder (cumulative)'.padEnd(32)} CPU µs/req  delta to the step below, median [min–max]`)
  const steps = servers.filter((s) => s.name.startsWith('ladder'))
  steps.forEach((s, i) => {
    const rs = results.get(s.name)!.map((x) => x.serverUs)
    const below = i === 0 ? undefined : results.get(steps[i - 1]!.name)!.map((x) => x.serverUs)
    const deltas = below ? rs.map((x, r) => x - below[r]!) : undefined
    console.log(`${s.name.padEnd(32)} ${median(rs).toFixed(1).padStart(10)}  ${deltas ? spread(deltas, 1) : ''}`)
  })
}
const loadgenBound = servers.some((s) => results.get(s.name)!.some((x) => x.wrkCpu >= x.serverCpu))
console.log(
  loadgenBound
    ? 'WARNING: in some run wrk used as much CPU as the server: the load generator, not the server, was the limit'
    : 'wrk used less CPU than the server in every run: the server was the limit',
)

for (const s of servers) s.child.kill('SIGTERM')
await Promise.all(
  servers.map((s) => new Promise((r) => (s.child.exitCode !== null ? r(null) : s.child.once('exit', r)))),
)
for (const s of servers.filter((x) => isService(x.name))) {
  // read line by line: a fast machine writes more than the longest string V8 allows (512 MB) in one run
  let planLines = 0
  let lastPlanLine: string | undefined
  for await (const line of createInterface({ input: createReadStream(stdoutOf(s.name)), crlfDelay: Infinity })) {
    if (/"level":(40|50|60)\b/.test(line)) console.log(`${s.name} logged: ${line}`)
    if (line.includes('"plan served"')) {
      planLines++
      lastPlanLine = line
    }
  }
  if (s.name === 'service, no access line') continue
  const served = results.get(s.name)!.reduce((n, x) => n + x.requests, 0)
  console.log(`${s.name}: access lines written: ${planLines} (>= ${served} measured requests); last one:`)
  console.log(lastPlanLine)
}
if (logDir !== work) await rm(logDir, { recursive: true, force: true })
if (profile) {
  for (const s of servers) {
    const summary = await summariseProfile(profDirOf(s.name), { windows: loadWindows.get(s.name), top: 12 })
    console.log(`\n${s.name}: ${summary}`)
  }
}
await market.services.close()
await market.store.close()
