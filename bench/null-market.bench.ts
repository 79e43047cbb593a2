/**
 * The plan on markets where nothing predicts returns: for each seed, a demo market with `--signal 0`, the chain
 * replayed over its last `--days` plan days (walk-forward weights from the prior on), and the track record at h = 5:
 * the score's mean rank IC and its Hansen-Hodrick t. A plan that "finds" something here fits noise. Prints a line per
 * seed and how many |t| reach 2. Asserts nothing.
 *   npx tsx bench/null-market.bench.ts [--seeds 1-10] [--stocks 300] [--days 240] [--plan-days 150]
 */
import { rm } from 'node:fs/promises'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { silentProgress } from '../src/jobs/progress.js'
import { freshDemoStore } from './support.js'

const { values } = parseArgs({
  options: {
    seeds: { type: 'string', default: '1-10' },
    stocks: { type: 'string', default: '300' },
    days: { type: 'string', default: '240' },
    'plan-days': { type: 'string', default: '150' },
  },
})
const [lo, hi] = values.seeds!.split('-').map(Number) as [number, number]
const signal = new AbortController().signal
const results: Array<{ seed: number; ic: number | null; t: number | null; days: number }> = []

for (let seed = lo; seed <= (hi ?? lo); seed++) {
  const root = path.resolve('var/bench/null-market', String(seed))
  const market = { stocks: Number(values.stocks), days: Number(values.days), seed, signal: 0 }
  const { store, services, calendar } = await freshDemoStore(root, market)
  try {
    const dates = calendar.slice(-Number(values['plan-days']))
    await services.replay({ from: dates[0]!, to: dates.at(-1)!, restart: true }, signal, silentProgress)
    const record = await services.trackRecord.evaluate({ horizon: 5, benchmark: '000300.SH' })
    results.push({ seed, ic: record.ic.score.mean, t: record.ic.score.t, days: record.days })
    const strongest = Object.entries(record.ic.components)
      .filter(([, v]) => v.t !== null)
      .sort((x, y) => Math.abs(y[1].t!) - Math.abs(x[1].t!))
      .slice(0, 3)
      .map(([name, v]) => `${name} ${v.mean?.toFixed(4)} (t ${v.t?.toFixed(2)})`)
    console.log(
      `seed ${seed}: ${record.days} plan days, score IC ${record.ic.score.mean?.toFixed(4)}, t ${record.ic.score.t?.toFixed(2)}; strongest signals: ${strongest.join(', ')}`,
    )
  } finally {
    await store.close()
    await rm(root, { recursive: true, force: true })
  }
}
const significant = results.filter((r) => r.t !== null && Math.abs(r.t) >= 2).length
console.log(
  `|t| >= 2 on ${significant} of ${results.length} null markets (t: ${results.map((r) => r.t?.toFixed(2)).join(', ')})`,
)
