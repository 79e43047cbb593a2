/**
 * Longest event-loop stall while the build, plan and push-pool jobs run in this process (as they do inside the
 * server when XXL-JOB triggers the chain). Prints figures; asserts nothing.  npx tsx bench/loop-stall.bench.ts
 */
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { benchMarket } from './support.js'

const m = await benchMarket()
const h = monitorEventLoopDelay({ resolution: 5 })
let worst = 0
let last = performance.now()
const timer = setInterval(() => {
  const now = performance.now()
  worst = Math.max(worst, now - last - 5)
  last = now
}, 5)
const t0 = performance.now()
h.enable()
await m.services.steps.build({ date: m.lastDate }, new AbortController().signal)
console.log(
  'build',
  (performance.now() - t0).toFixed(0),
  'ms, worst loop stall',
  worst.toFixed(0),
  'ms, p99',
  (h.percentile(99) / 1e6).toFixed(0),
)
worst = 0
h.reset()
const t1 = performance.now()
await m.services.steps.plan({ date: m.lastDate }, new AbortController().signal)
console.log('plan', (performance.now() - t1).toFixed(0), 'ms, worst loop stall', worst.toFixed(0), 'ms')
worst = 0
await m.services.steps['push-pool']({ date: m.lastDate }, new AbortController().signal)
console.log('push-pool worst stall', worst.toFixed(0))
clearInterval(timer)
await m.services.close()
await m.store.close()
