/**
 * `stockplan evaluate` before and after issue 28, in the same run. Before: every outcome row read with its tier and
 * daily row and the record computed row by row (the pre-28 path, kept as test/support/track-record-reference.ts).
 * After: the service as it is, reading each plan day's stored statistics (plan_day_stats). Also times writing the
 * statistics (all days at once, as after a migration, and the newest day alone, as the outcomes step does each
 * day), and compares the two reports figure by figure. Prints figures; asserts nothing.
 *
 * By default on a synthesised full-size record: 5000 codes x 250 plan days of tier rows, daily rows and 5-day
 * outcomes (1.25 million of each) in var/bench/evaluate (the evaluator reads only those tables and the index bars);
 * with --store DIR on an existing store (PG_DATA_DIR=DIR/pg, PLAN_DATA_DIR=DIR/plan), e.g. a copy of a replayed
 * real market. The statistics this bench writes go into that store.
 *   npx tsx bench/evaluate.bench.ts [--stocks 5000 --days 250] [--store DIR] [--horizon 5] [--rounds 3]
 */
import path from 'node:path'
import { sql } from 'kysely'
import { createServices } from '../src/compose.js'
import { DEFAULT_BENCHMARK } from '../src/domain/outcomes.js'
import { benchmarkReturn, SCORE_COMPONENTS } from '../src/domain/track-record.js'
import { createLogger } from '../src/logger.js'
import { createTrackRecordDays } from '../src/services/track-record-days.js'
import { createPlanDayStatsRepository } from '../src/storage/plan-day-stats.repository.js'
import { openStore } from '../src/storage/store.js'
import { createTrackRecordRepository } from '../src/storage/track-record.repository.js'
import { referenceTrackRecord } from '../test/support/track-record-reference.js'
import { benchConfig, flag, median, timed } from './support.js'

const stocks = flag('stocks', 5000)
const days = flag('days', 250)
const rounds = flag('rounds', 3)
const horizon = flag('horizon', 5)
const storeFlag = process.argv.indexOf('--store')
const existing = storeFlag >= 0 ? path.resolve(process.argv[storeFlag + 1]!) : undefined
const root = existing ?? path.resolve('var/bench/evaluate', `${stocks}x${days}`)
const config = benchConfig(root)
const log = createLogger(config)
const store = await openStore(config, log)
const db = store.db
const services = createServices(config, log, store)
const benchmark = DEFAULT_BENCHMARK

async function synthesise(): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (const table of ['plan_outcomes', 'stock_daily', 'tier_scores', 'index_bars'])
      await sql.raw(`truncate ${table}`).execute(trx)
    await sql`create temp table bench_days on commit drop as
      select d::date as d, row_number() over (order by d) as i
      from generate_series('2024-01-01'::date, '2026-12-31'::date, '1 day') d
      where extract(isodow from d) < 6 limit ${days + 5}`.execute(trx)
    await sql`insert into index_bars (code, trade_date, open, high, low, close, volume, amount)
      select '000300.SH', d, 3900 + i, 3910 + i, 3890 + i, 3900 + i * 1.2, 1, 1 from bench_days`.execute(trx)
    // every score component varies, as on a real build: each gets its own rank IC
    await sql`insert into tier_scores (trade_date, code, score, rank, tier, theme, upside, heat, transmission, build_id,
        pts_momentum, pts_trend, pts_heat, pts_upside, pts_liquidity, pts_quality)
      select d, lpad(c::text, 6, '0') || '.SZ', score, 0,
        case when score >= 90 then 'main' when score >= 70 then 'observe' else 'reject' end,
        'theme ' || (c % 40), random(), random() * 100, random(), 'bench',
        round((random() * 20)::numeric, 2), round((random() * 20)::numeric, 2), round((random() * 20)::numeric, 2),
        round((random() * 20)::numeric, 2), round((random() * 10)::numeric, 2), round((random() * 10)::numeric, 2)
      from (select b.d, c, round((random() * 100)::numeric, 2)::float8 as score
        from bench_days b cross join generate_series(1, ${stocks}) c where b.i <= ${days}) s`.execute(trx)
    await sql`insert into stock_daily (code, trade_date, verdict, card_rank, plan_version, logic_state, score,
        score_ema, state_since, state_rule, code_version)
      select code, trade_date, tier, null, '1',
        (array['forming','confirmed','weakening','broken'])[1 + (abs(hashtext(code)) % 4)], score, score,
        trade_date, 'bench', 'bench'
      from tier_scores`.execute(trx)
    await sql`insert into plan_outcomes (trade_date, horizon, code, entry_date, exit_date, tradable, reason, ret,
        benchmark, bench_ret, universe_ret, excess, regime)
      select trade_date, 5, code, e, x, u > 0.01, case when u > 0.01 then null else 'suspended' end,
        case when u > 0.01 then (score - 50) / 5000 + (random() - 0.5) * 0.1 end, '000300.SH', 0.01, 0, null,
        (array['strong','neutral','weak'])[1 + (i % 3)::int]
      from (select t.trade_date, t.code, t.score, b.i, e.d as e, x.d as x, random() as u
        from tier_scores t join bench_days b on b.d = t.trade_date
        join bench_days e on e.i = b.i + 1 join bench_days x on x.i = b.i + 5) s`.execute(trx)
  })
  await sql`analyze`.execute(db)
}

if (!existing) {
  const have = await sql<{ n: number; scores: number; components: number }>`
    select (select count(*)::int from plan_outcomes where horizon = 5) as n,
      (select count(distinct score)::int from tier_scores) as scores,
      (select count(distinct pts_quality)::int from tier_scores) as components`.execute(db)
  if (have.rows[0]!.n !== stocks * days || have.rows[0]!.scores < 100 || have.rows[0]!.components < 100) {
    console.log(`synthesising ${stocks} x ${days} tier rows, daily rows and outcomes (once) ...`)
    const [, ms] = await timed(synthesise)
    console.log(`synthesised in ${(ms / 1000).toFixed(1)} s`)
  }
}

const repository = createTrackRecordRepository(db)
const dayStats = createPlanDayStatsRepository(db)
const trackRecordDays = createTrackRecordDays({ records: repository, stats: dayStats })
const signal = new AbortController().signal

/** The pre-28 service: every row of the record read and the figures computed from them. */
async function before() {
  const [signalIcs, weights] = await Promise.all([repository.signalIcs(horizon), repository.weights()])
  const components = signalIcs.size > 0 ? [] : SCORE_COMPONENTS
  const loaded = await repository.days({ horizon, components })
  const bars =
    loaded.length > 0 ? await repository.indexBars(benchmark, loaded[0]!.entryDate, loaded.at(-1)!.exitDate) : new Map()
  const withBench = loaded.map((d) => ({ ...d, benchRet: benchmarkReturn(bars, d.entryDate, d.exitDate) }))
  const record = referenceTrackRecord(withBench, { horizon, components, precomputedIcs: signalIcs })
  return { benchmark, ...record, weights }
}

/** Figures compared: how many, how many differ in any bit, and the largest relative difference. */
function compare(
  a: unknown,
  b: unknown,
  at = '',
  out = { n: 0, unequal: 0, worst: 0, where: '', other: [] as string[] },
) {
  if (typeof a === 'number' && typeof b === 'number') {
    out.n++
    if (a !== b) {
      out.unequal++
      const rel = Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b))
      if (rel > out.worst) Object.assign(out, { worst: rel, where: at })
    }
  } else if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)])
    for (const k of keys)
      compare((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${at}.${k}`, out)
  } else if (a !== b) out.other.push(at)
  return out
}

const outcomeDates = await dayStats.outcomeDates(horizon)
console.log(`record: ${outcomeDates.length} plan days with outcomes at h = ${horizon}`)
await sql`delete from plan_day_stats where horizon = ${horizon}`.execute(db)
const [backfilled, backfill] = await timed(() => trackRecordDays.writeMissing(horizon, benchmark, signal))
console.log(
  `statistics of every day written (as after the migration): ${backfilled} days in ${(backfill / 1000).toFixed(2)} s`,
)
const newest = outcomeDates.at(-1)!
const newestDay: number[] = []
for (let r = 0; r < rounds; r++) {
  await sql`delete from plan_day_stats where horizon = ${horizon} and trade_date = ${newest}::date`.execute(db)
  newestDay.push((await timed(() => trackRecordDays.writeMissing(horizon, benchmark, signal)))[1])
}

const befores: number[] = []
const afters: number[] = []
let check = compare(null, null)
let summary = ''
for (let r = 0; r < rounds; r++) {
  const [old, b] = await timed(before)
  befores.push(b)
  const [report, a] = await timed(() => services.trackRecord.evaluate({ horizon, benchmark }))
  afters.push(a)
  console.log(`round ${r + 1}: before ${(b / 1000).toFixed(2)} s, after ${(a / 1000).toFixed(3)} s`)
  check = compare(old, report)
  summary = `${report.days} days, ${report.rows} rows, mean IC ${report.ic.score.mean?.toFixed(4)} (t ${report.ic.score.t?.toFixed(1)})`
}
const fmt = (xs: number[], digits = 2) =>
  `median ${(median(xs) / 1000).toFixed(digits)} s (runs ${xs.map((x) => (x / 1000).toFixed(digits)).join(', ')})`
console.log(`record: ${summary}`)
console.log(`before: rows read and computed row by row (pre-28):  ${fmt(befores)}`)
console.log(`after:  stored per-day statistics (the service):     ${fmt(afters, 3)}`)
console.log(`ratio before / after: ${(median(befores) / median(afters)).toFixed(1)}`)
console.log(`writing one day's statistics (the outcomes step, per horizon): ${fmt(newestDay, 3)}`)
console.log(
  `figures compared: ${check.n}, differing in any bit: ${check.unequal}, largest relative difference ` +
    `${check.worst.toExponential(1)}${check.where ? ` (${check.where})` : ''}; other differences: ${check.other.length ? check.other.join(', ') : 'none'}`,
)
await services.close()
await store.close()
