/**
 * How a replay's cost per day grows with the history behind it (issue 28: flat from 250 to 1,000 days, within
 * 1.3x). For each size (codes x trading days) a fresh demo market in its own embedded PostgreSQL, its generation and
 * import timed, then ONE `replay` of every day from the first with the full signal look-back (calendar day 122,
 * index `SIGNAL_WINDOWS.history`) to the last, each day's wall time and node CPU taken from the replay's progress
 * ticks. The flatness figure is the mean of the last 30 days over the mean of the 30 days ending at the 250th
 * calendar day (only when the market has 280 days or more). Also times, apart: one `loadMarketHistory` of the
 * replay's whole range (what the replay reads before its first day) and `evaluate` (horizon 5), and notes the store's
 * size and the process's peak RSS (sampled at each day). Node CPU against wall time tells this process's work from
 * waiting on PostgreSQL. Prints figures and a Markdown table; asserts nothing.
 *   npx tsx bench/replay-growth.bench.ts [--sizes 1000x250,1000x1000,2500x250,5000x250] [--keep]
 * Each size lives in var/bench/replay-growth/<codes>x<days>, deleted afterwards unless --keep.
 */
import { rm } from 'node:fs/promises'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { DEFAULT_BENCHMARK } from '../src/domain/outcomes.js'
import { SIGNAL_WINDOWS } from '../src/domain/signals.js'
import type { Progress } from '../src/jobs/progress.js'
import { loadMarketHistory } from '../src/storage/bar-history.js'
import { databaseBytes, freshDemoStore, timed } from './support.js'

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1000x250,1000x1000,2500x250,5000x250' },
    keep: { type: 'boolean', default: false },
  },
})
const sizes = values.sizes!.split(',').map((s) => s.split('x').map(Number) as [number, number])
const WINDOW = 30
/** The early window ends on this calendar day (1-based): about a year of history behind it. */
const EARLY_END = 250
const signal = new AbortController().signal

const mean = (xs: readonly number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.NaN)
const fixed = (x: number, digits = 2): string => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a')
const cpuMs = (): number => {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}

/** A replay's progress that marks, at its start and after each day, the wall clock, node CPU and RSS. */
function stopwatch() {
  const wall: number[] = []
  const cpu: number[] = []
  let peakRss = process.memoryUsage.rss()
  const mark = () => {
    wall.push(performance.now())
    cpu.push(cpuMs())
    peakRss = Math.max(peakRss, process.memoryUsage.rss())
  }
  const progress: Progress = { start: mark, tick: mark, done: () => undefined }
  const perDay = (marks: number[]) => marks.slice(1).map((t, i) => (t - marks[i]!) / 1000)
  return {
    progress,
    daysStartedAt: () => wall[0]!,
    /** Seconds per replayed day, wall and node CPU, oldest first. */
    days: () => ({ wall: perDay(wall), cpu: perDay(cpu) }),
    sampleRss: () => {
      peakRss = Math.max(peakRss, process.memoryUsage.rss())
    },
    peakRss: () => peakRss,
  }
}

const table: string[] = []
for (const [stocks, days] of sizes) {
  const root = path.resolve('var/bench/replay-growth', `${stocks}x${days}`)
  const say = (what: string) => console.log(`${stocks} x ${days}: ${what}`)
  say('generating and importing ...')
  const { store, services, calendar, load } = await freshDemoStore(root, { stocks, days, seed: 7 })
  try {
    if (calendar.length <= SIGNAL_WINDOWS.history)
      throw new Error(`${stocks}x${days}: ${calendar.length} trading days, the look-back alone needs more`)
    const importRate = load.rows / (load.importMs / 1000)
    say(
      `generated in ${fixed(load.generateMs / 1000, 1)} s; imported ${load.rows} rows in ${fixed(load.importMs / 1000, 1)} s (${Math.round(importRate)} rows/s)`,
    )

    const from = calendar[SIGNAL_WINDOWS.history]!
    const to = calendar.at(-1)!
    const watch = stopwatch()
    const cpuBefore = cpuMs()
    const calledAt = performance.now()
    const result = await services.replay({ from, to }, signal, watch.progress)
    const replaySeconds = (performance.now() - calledAt) / 1000
    const replayCpu = (cpuMs() - cpuBefore) / 1000
    const { wall, cpu } = watch.days()
    // the history read, the calendar and the resume check, before the replay starts its days
    const beforeFirstDay = (watch.daysStartedAt() - calledAt) / 1000
    say(
      `replayed ${result.replayed} days ${from}..${to} in ${fixed(replaySeconds, 1)} s, ${fixed(mean(wall))} s a day; node CPU ${fixed(replayCpu, 1)} s (${fixed((100 * replayCpu) / replaySeconds, 0)}% of wall); ${fixed(beforeFirstDay)} s before the first day`,
    )

    // replayed day i is calendar day SIGNAL_WINDOWS.history + i (0-based)
    const earlyEnd = EARLY_END - SIGNAL_WINDOWS.history
    const hasEarly = calendar.length >= EARLY_END + WINDOW
    const early = hasEarly ? mean(wall.slice(earlyEnd - WINDOW, earlyEnd)) : Number.NaN
    const earlyCpu = hasEarly ? mean(cpu.slice(earlyEnd - WINDOW, earlyEnd)) : Number.NaN
    const late = mean(wall.slice(-WINDOW))
    const lateCpu = mean(cpu.slice(-WINDOW))
    const ratio = late / early
    say(
      `s a day (node CPU): ${WINDOW} days to calendar day ${EARLY_END} ${fixed(early)} (${fixed(earlyCpu)}), last ${WINDOW} days ${fixed(late)} (${fixed(lateCpu)}); last / early ${fixed(ratio)}`,
    )

    const cpuBeforeLoad = cpuMs()
    const [history, loadMs] = await timed(() => loadMarketHistory(store.db, calendar[0]!, to))
    const loadCpu = (cpuMs() - cpuBeforeLoad) / 1000
    watch.sampleRss()
    say(
      `loadMarketHistory ${history.from}..${history.to} alone: ${fixed(loadMs / 1000)} s (node CPU ${fixed(loadCpu)} s)`,
    )

    const cpuBeforeEvaluate = cpuMs()
    const [, evaluateMs] = await timed(() =>
      services.trackRecord.evaluate({ horizon: 5, benchmark: DEFAULT_BENCHMARK }),
    )
    const evaluateCpu = (cpuMs() - cpuBeforeEvaluate) / 1000
    watch.sampleRss()
    const gb = (await databaseBytes(store)) / 1e9
    const rssMb = watch.peakRss() / 2 ** 20
    say(
      `evaluate (horizon 5): ${fixed(evaluateMs / 1000)} s (node CPU ${fixed(evaluateCpu)} s); store ${fixed(gb)} GB; peak RSS ${Math.round(rssMb)} MB`,
    )
    table.push(
      `| ${stocks} × ${days} | ${load.rows} | ${fixed(load.generateMs / 1000, 1)} | ${fixed(load.importMs / 1000, 1)} (${Math.round(importRate / 1000)} k/s) | ${result.replayed} | ${fixed(replaySeconds, 1)} | ${fixed(mean(wall))} | ${fixed(early)} | ${fixed(late)} | ${fixed(ratio)} | ${fixed((100 * replayCpu) / replaySeconds, 0)}% | ${fixed(loadMs / 1000)} | ${fixed(evaluateMs / 1000)} | ${fixed(gb)} GB | ${Math.round(rssMb)} MB |`,
    )
  } finally {
    await store.close()
    if (!values.keep) await rm(root, { recursive: true, force: true })
  }
}
console.log(
  [
    '',
    `| codes × days | rows imported | generate, s | import, s | replayed days | replay, s | s/day | s/day, ${WINDOW} days to day ${EARLY_END} | s/day, last ${WINDOW} | last / early | node CPU / wall | history load, s | evaluate h5, s | store | peak RSS |`,
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...table,
  ].join('\n'),
)
