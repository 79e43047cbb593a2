/**
 * `stockplan evaluate` on a full-size record: 5000 codes x 250 plan days of tier rows, daily rows and 5-day
 * outcomes (1.25 million of each), synthesised once in SQL in var/bench/evaluate (the evaluator reads only those
 * tables and the index bars). Times the whole evaluation (read + compute), its parts, and as a baseline in the
 * same run the bare read of the same joined rows and columns (one SQL join, pg's row decoding, no evaluator).
 * Prints figures; asserts nothing.
 *   npx tsx bench/evaluate.bench.ts [--stocks 5000 --days 250 --rounds 3]
 */
import path from 'node:path'
import { sql } from 'kysely'
import { createServices } from '../src/compose.js'
import { evaluateTrackRecord, SCORE_COMPONENTS } from '../src/domain/track-record.js'
import { createLogger } from '../src/logger.js'
import { openStore } from '../src/storage/store.js'
import { createTrackRecordRepository } from '../src/storage/track-record.repository.js'
import { benchConfig, flag, median, timed } from './support.js'

const stocks = flag('stocks', 5000)
const days = flag('days', 250)
const rounds = flag('rounds', 3)
const root = path.resolve('var/bench/evaluate', `${stocks}x${days}`)
const config = benchConfig(root)
const log = createLogger(config)
const store = await openStore(config, log)
const db = store.db
const services = createServices(config, log, store)

const have = await sql<{ n: number; scores: number; components: number }>`
  select (select count(*)::int from plan_outcomes where horizon = 5) as n,
    (select count(distinct score)::int from tier_scores) as scores,
    (select count(distinct pts_quality)::int from tier_scores) as components`.execute(db)
if (have.rows[0]!.n !== stocks * days || have.rows[0]!.scores < 100 || have.rows[0]!.components < 100) {
  console.log(`synthesising ${stocks} x ${days} tier rows, daily rows and outcomes (once) ...`)
  const [, ms] = await timed(async () => {
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
  })
  console.log(`synthesised in ${(ms / 1000).toFixed(1)} s`)
}

const repository = createTrackRecordRepository(db)
const totals: number[] = []
const reads: number[] = []
const computes: number[] = []
const baselines: number[] = []
let summary = ''
for (let r = 0; r < rounds; r++) {
  const [, base] = await timed(() =>
    sql`select o.trade_date, o.code, o.ret, o.reason, t.score, t.theme,
          ${sql.join(SCORE_COMPONENTS.map((c) => sql.ref(`t.${c}`)))}, sd.verdict, sd.logic_state
        from plan_outcomes o join tier_scores t on t.trade_date = o.trade_date and t.code = o.code
        left join stock_daily sd on sd.trade_date = o.trade_date and sd.code = o.code
        where o.horizon = 5`.execute(db),
  )
  baselines.push(base)
  console.log(`round ${r + 1}: bare read ${(base / 1000).toFixed(2)} s`)
  const [report, total] = await timed(() => services.trackRecord.evaluate({ horizon: 5, benchmark: '000300.SH' }))
  totals.push(total)
  console.log(`round ${r + 1}: evaluate ${(total / 1000).toFixed(2)} s`)
  const [loaded, read] = await timed(() => repository.days({ horizon: 5, components: SCORE_COMPONENTS }))
  reads.push(read)
  const [, compute] = await timed(async () =>
    evaluateTrackRecord(
      loaded.map((d) => ({ ...d, benchRet: 0.01 })),
      { horizon: 5 },
    ),
  )
  computes.push(compute)
  summary = `${report.days} days, ${report.rows} rows, mean IC ${report.ic.score.mean?.toFixed(4)} (t ${report.ic.score.t?.toFixed(1)})`
}
const fmt = (xs: number[]) =>
  `median ${(median(xs) / 1000).toFixed(2)} s (runs ${xs.map((x) => (x / 1000).toFixed(2)).join(', ')})`
console.log(`record: ${summary}`)
console.log(`evaluate, whole (service: read + compute): ${fmt(totals)}`)
console.log(`  read (10-date batches, JSON arrays):     ${fmt(reads)}`)
console.log(`  compute (pure domain):                   ${fmt(computes)}`)
console.log(`baseline: bare read of the joined rows:    ${fmt(baselines)}`)
console.log(`ratio evaluate / bare read: ${(median(totals) / median(baselines)).toFixed(2)}`)
await services.close()
await store.close()
