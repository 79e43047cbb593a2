/**
 * Replay speed and how it grows: for each size (codes x trading days) a fresh demo market in its own embedded
 * PostgreSQL, then the last `--days` plan days run two ways on the same store, in the same run:
 * - day by day: each day's `build`, `plan` and `outcomes` as the nightly chain runs them (the baseline);
 * - `replay`: the same days again (`--restart`), reading the bars of the whole range once.
 * Both write the same rows (test/jobs/replay.test.ts checks it row for row). Prints seconds per day, days per second,
 * the ratio, and the store's size. Asserts nothing.
 *   npx tsx bench/replay.bench.ts [--sizes 1000x250,2500x250,5000x250,5000x1000] [--days 40] [--keep]
 * Each size lives in var/bench/replay/<codes>x<days>, deleted afterwards unless --keep.
 */
import { rm } from 'node:fs/promises'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { silentProgress } from '../src/jobs/progress.js'
import { databaseBytes, freshDemoStore } from './support.js'

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1000x250,2500x250,5000x250,5000x1000' },
    days: { type: 'string', default: '40' },
    keep: { type: 'boolean', default: false },
  },
})
const sizes = values.sizes!.split(',').map((s) => s.split('x').map(Number) as [number, number])
const planDays = Number(values.days)
const signal = new AbortController().signal
const table: string[] = []

for (const [stocks, days] of sizes) {
  const root = path.resolve('var/bench/replay', `${stocks}x${days}`)
  const say = (what: string) => console.log(`${stocks} x ${days}: ${what}`)
  const { store, services, calendar } = await freshDemoStore(root, { stocks, days, seed: 7 })
  try {
    const dates = calendar.slice(-planDays)
    say(`imported; ${dates.length} plan days ${dates[0]}..${dates.at(-1)}`)

    let started = performance.now()
    for (const date of dates) {
      await services.steps.build({ date }, signal)
      await services.steps.plan({ date }, signal)
      await services.steps.outcomes({ date }, signal)
    }
    const dayByDay = (performance.now() - started) / 1000 / dates.length
    say(`day by day ${dayByDay.toFixed(2)} s a day`)

    started = performance.now()
    await services.replay({ from: dates[0]!, to: dates.at(-1)!, restart: true }, signal, silentProgress)
    const replay = (performance.now() - started) / 1000 / dates.length
    say(`replay ${replay.toFixed(2)} s a day (${(1 / replay).toFixed(1)} days/s)`)

    const gb = (await databaseBytes(store)) / 1e9
    table.push(
      `| ${stocks} x ${days} | ${dates.length} | ${dayByDay.toFixed(2)} | ${replay.toFixed(2)} | ${(1 / replay).toFixed(1)} | ${(dayByDay / replay).toFixed(2)} | ${gb.toFixed(2)} GB |`,
    )
  } finally {
    await store.close()
    if (!values.keep) await rm(root, { recursive: true, force: true })
  }
}
console.log(
  [
    '',
    '| codes x days | plan days | day by day, s/day | replay, s/day | replay, days/s | day by day / replay | store |',
    '|---|---|---|---|---|---|---|',
    ...table,
  ].join('\n'),
)
