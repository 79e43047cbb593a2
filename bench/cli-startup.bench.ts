/**
 * CLI start-up: `stockplan --help`, and a job's first line (`[build] start`, the step marker an XXL-JOB run
 * log shows first) and its end, through the compiled CLI against running the TypeScript sources through tsx
 * (STOCKPLAN_RUN=tsx), measured in the same run. `--baseline <checkout>/bin/stockplan.js` adds another
 * checkout's CLI (e.g. the commit before the compiled CLI) as a third row. Prints figures; asserts nothing.
 *   npx tsx bench/cli-startup.bench.ts [--runs 7 --stocks 5000 --days 250] [--baseline /path/bin/stockplan.js]
 */
import { execFileSync, spawn } from 'node:child_process'
import { benchMarket, flag, median } from './support.js'

const runs = flag('runs', 7)
const at = process.argv.indexOf('--baseline')
const baseline = at >= 0 ? process.argv[at + 1] : undefined

interface Variant {
  readonly name: string
  readonly bin: string
  readonly env: Record<string, string>
}
const variants: Variant[] = [
  { name: 'compiled (default)', bin: 'bin/stockplan.js', env: {} },
  { name: 'tsx (STOCKPLAN_RUN=tsx)', bin: 'bin/stockplan.js', env: { STOCKPLAN_RUN: 'tsx' } },
  ...(baseline ? [{ name: `baseline ${baseline}`, bin: baseline, env: {} }] : []),
]

/** Milliseconds to the first line on stderr matching `first` (or the first stdout line) and to the exit. */
function time(bin: string, args: string[], env: Record<string, string>, first?: RegExp) {
  return new Promise<{ firstMs: number; exitMs: number; code: number | null }>((resolve, reject) => {
    const started = performance.now()
    let firstMs = Number.NaN
    const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, ...env } })
    const watch = (stream: NodeJS.ReadableStream, matches: (line: string) => boolean) => {
      let text = ''
      stream.on('data', (chunk: Buffer) => {
        text += chunk.toString()
        if (Number.isNaN(firstMs) && text.split('\n').some(matches)) firstMs = performance.now() - started
      })
    }
    watch(child.stdout, () => first === undefined)
    watch(child.stderr, (line) => first?.test(line) === true)
    child.on('error', reject)
    child.on('exit', (code) => resolve({ firstMs, exitMs: performance.now() - started, code }))
  })
}

const fmt = (ms: number) => `${Math.round(ms)} ms`
const market = await benchMarket({})
const date = market.lastDate
const jobEnv = { DATABASE_URL: market.store.url, LOG_LEVEL: 'warn' }
// warm the build (a first run after an edit compiles it) and the file cache
execFileSync(process.execPath, ['bin/stockplan.js', '--help'], { stdio: 'ignore' })

const rows: Record<string, { help: number[]; first: number[]; exit: number[] }> = Object.fromEntries(
  variants.map((v) => [v.name, { help: [], first: [], exit: [] }]),
)
for (let round = 0; round < runs; round++) {
  // interleaved rounds: noise from other work on the machine hits every variant alike
  for (const v of variants) {
    const row = rows[v.name]!
    const help = await time(v.bin, ['--help'], v.env)
    row.help.push(help.exitMs)
    const job = await time(v.bin, ['build', '--date', date], { ...v.env, ...jobEnv }, /^\[build\] start/)
    if (job.code !== 0) throw new Error(`${v.name}: build exited ${job.code}`)
    row.first.push(job.firstMs)
    row.exit.push(job.exitMs)
  }
}
const base = rows[variants[1]!.name]!
console.log(
  `${runs} rounds, build of ${date} on a ${flag('stocks', 5000)} x ${flag('days', 250)} demo market; medians:`,
)
for (const v of variants) {
  const r = rows[v.name]!
  console.log(
    `${v.name.padEnd(34)} --help ${fmt(median(r.help)).padStart(7)} (x${(median(r.help) / median(base.help)).toFixed(2)})` +
      `  first line ${fmt(median(r.first)).padStart(7)} (x${(median(r.first) / median(base.first)).toFixed(2)})` +
      `  build done ${fmt(median(r.exit)).padStart(7)}`,
  )
}
const bare = await time('-e', ['0'], {})
console.log(`node -e 0 (the floor): ${fmt(bare.exitMs)}`)
await market.services.close()
await market.store.close()
