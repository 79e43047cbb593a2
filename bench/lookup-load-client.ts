/**
 * The load generator of bench/lookup-load.bench.ts, in its own process so that neither the server nor the
 * /health probe shares its event loop: `concurrency` clients each send GET <url> back to back for `seconds`.
 * Prints one JSON line: every latency in ms, the non-200 count, and this process's own CPU during the load.
 *   npx tsx bench/lookup-load-client.ts <url> <concurrency> <seconds>
 */
const [url, concurrencyArg, secondsArg] = process.argv.slice(2)
if (!url) throw new Error('usage: lookup-load-client.ts <url> <concurrency> <seconds>')
const concurrency = Number(concurrencyArg ?? 8)
const seconds = Number(secondsArg ?? 10)

const latencies: number[] = []
let failures = 0
process.send?.('started') // the parent's /health probe runs while the load does
const cpuBefore = process.cpuUsage()
const started = performance.now()
const until = started + seconds * 1000
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (performance.now() < until) {
      const sent = performance.now()
      const res = await fetch(url)
      await res.arrayBuffer()
      latencies.push(performance.now() - sent)
      if (res.status !== 200) failures++
    }
  }),
)
const cpu = process.cpuUsage(cpuBefore)
process.stdout.write(
  `${JSON.stringify({
    latencies,
    failures,
    wallMs: performance.now() - started,
    cpuMs: (cpu.user + cpu.system) / 1000,
  })}\n`,
)
