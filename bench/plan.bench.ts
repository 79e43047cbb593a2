/**
 * Plan benchmarks on the full demo market: build and plan jobs, live assembly, the snapshot path, and cached
 * GET /plan throughput against a bare node:http server sending the same bytes. Prints figures; asserts nothing.
 *   npx tsx bench/plan.bench.ts [--stocks 5000 --days 250 --seconds 10]
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { createServices } from '../src/compose.js'
import { DEFAULT_SIZES } from '../src/domain/plan-assembly.js'
import { buildApp } from '../src/http/app.js'
import { createLogger } from '../src/logger.js'
import { autocannon, benchMarket, flag, median, p99, timed } from './support.js'

const seconds = flag('seconds', 10)
const market = await benchMarket()
const { services, lastDate, calendar } = market
const signal = new AbortController().signal
const date = calendar.at(-1)!

const builds: number[] = []
for (let i = 0; i < 3; i++) builds.push((await timed(() => services.steps.build({ date }, signal)))[1])
const plans: number[] = []
for (let i = 0; i < 3; i++) plans.push((await timed(() => services.steps.plan({ date }, signal)))[1])
console.log(
  `build ${lastDate}: median ${median(builds).toFixed(0)} ms (runs: ${builds.map((b) => b.toFixed(0)).join(', ')})`,
)
console.log(`plan job: median ${median(plans).toFixed(0)} ms (runs: ${plans.map((b) => b.toFixed(0)).join(', ')})`)

const log = createLogger({ logLevel: 'warn' })
const live = createServices({ ...market.config, planFromSnapshot: false, planCacheSec: 0 }, log, market.store)
const liveTimes: number[] = []
for (let i = 0; i < 30; i++) {
  liveTimes.push((await timed(() => live.plans.getPlan({ date, sizes: DEFAULT_SIZES, nocache: true })))[1])
}
console.log(
  `live assembly (snapshot off, cache off): median ${median(liveTimes).toFixed(1)} ms, p99 ${p99(liveTimes).toFixed(1)} ms`,
)

const snapTimes: number[] = []
for (let i = 0; i < 50; i++) {
  snapTimes.push((await timed(() => services.plans.getPlan({ date, sizes: DEFAULT_SIZES, nocache: true })))[1])
}
console.log(`snapshot path (nocache=1): median ${median(snapTimes).toFixed(1)} ms, p99 ${p99(snapTimes).toFixed(1)} ms`)

const app = await buildApp(services)
await app.listen({ port: 0, host: '127.0.0.1' })
const appUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/plan`
const body = await (await fetch(appUrl)).text()
const bare = http.createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) })
  res.end(body)
})
await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r))
const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/plan`
console.log(`cached GET /plan body: ${Buffer.byteLength(body)} bytes`)
const bareResult = await autocannon(bareUrl, 50, seconds)
const appResult = await autocannon(appUrl, 50, seconds)
console.log(
  `bare node:http, same bytes: ${bareResult.rps.toFixed(0)} req/s (p99 ${bareResult.p99} ms, errors ${bareResult.errors})`,
)
console.log(
  `GET /plan cached:          ${appResult.rps.toFixed(0)} req/s (p99 ${appResult.p99} ms, errors ${appResult.errors})`,
)
console.log(`ratio: ${(appResult.rps / bareResult.rps).toFixed(2)} of the bare server`)

bare.close()
await app.close()
await live.close()
await services.close()
await market.store.close()
