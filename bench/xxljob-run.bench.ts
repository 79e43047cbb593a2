/**
 * `/api/v1/xxljob/run` reply time while a real dailyPlanChain runs on the full demo market: 50 more triggers
 * for the same job (serial strategy: they queue) are timed over a real socket. Prints figures; asserts nothing.
 *   npx tsx bench/xxljob-run.bench.ts [--stocks 5000 --days 250 --calls 50]
 */
import type { AddressInfo } from 'node:net'
import { buildApp } from '../src/http/app.js'
import { createScheduler, mountScheduler } from '../src/scheduler-wiring.js'
import { createMetrics } from '../src/services/metrics.js'
import { benchMarket, flag, median, p99 } from './support.js'

const calls = flag('calls', 50)
const TOKEN = 'bench-token'
const market = await benchMarket({ XXLJOB_ACCESS_TOKEN: TOKEN })
const metrics = createMetrics({ defaults: false })
const executor = createScheduler(market.services, metrics)!
const app = await buildApp({
  ...market.services,
  metrics,
  extraPlugins: [mountScheduler(executor)],
})
await app.listen({ port: 0, host: '127.0.0.1' })
const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1/xxljob`
const post = (op: string, body: unknown) =>
  fetch(`${base}/${op}`, {
    method: 'POST',
    headers: { 'XXL-JOB-ACCESS-TOKEN': TOKEN, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
const trigger = (logId: number) => ({
  jobId: 7,
  executorHandler: 'dailyPlanChain',
  executorParams: JSON.stringify({ tradeDate: market.lastDate }),
  executorBlockStrategy: 'SERIAL_EXECUTION',
  executorTimeout: 0,
  logId,
  logDateTime: Date.now(),
  glueType: 'BEAN',
  glueSource: '',
  glueUpdatetime: 0,
  broadcastIndex: 0,
  broadcastTotal: 1,
})

const base_id = Date.now()
const started = performance.now()
await post('run', trigger(base_id))
await new Promise((r) => setTimeout(r, 300)) // the chain process is starting
let stall = 0
let tick = performance.now()
const monitor = setInterval(() => {
  const now = performance.now()
  stall = Math.max(stall, now - tick - 5)
  tick = now
}, 5)
const times: number[] = []
for (let i = 1; i <= calls; i++) {
  const t0 = performance.now()
  const res = await post('run', trigger(base_id + i))
  await res.text()
  times.push(performance.now() - t0)
  await new Promise((r) => setTimeout(r, 100)) // spread the calls over the whole chain (about 5 s)
}
clearInterval(monitor)
const busy = ((await (await post('idleBeat', { jobId: 7 })).json()) as { code: number }).code === 500
const log = (await (await post('log', { logId: base_id, fromLineNum: 1 })).json()) as {
  content: { logContent: string }
}
console.log(`run log of the chain so far:\n${log.content.logContent.trim()}`)
console.log(
  `/run while a dailyPlanChain runs (chain busy during the calls: ${busy}): median ${median(times).toFixed(1)} ms, p99 ${p99(times).toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms over ${calls} calls; longest event-loop stall meanwhile ${stall.toFixed(0)} ms`,
)
await post('kill', { jobId: 7 })
console.log(`(killed the run and its queue after ${((performance.now() - started) / 1000).toFixed(1)} s)`)
await app.close()
await executor.close()
await market.services.close()
await market.store.close()
