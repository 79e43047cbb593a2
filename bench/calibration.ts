/**
 * Calibration figures of the stored plans (issue 11's "must show"), read from the store the environment
 * points at (PG_DATA_DIR / DATABASE_URL), e.g. after `npx stockplan demo --days 320 --history 60`:
 *   npx tsx bench/calibration.ts
 * Prints figures only; it asserts nothing. The SQL is printed along with each figure.
 */
import { sql } from 'kysely'
import { loadConfig } from '../src/config.js'
import { createLogger } from '../src/logger.js'
import { openStore } from '../src/storage/store.js'

const config = loadConfig()
const store = await openStore(config, createLogger({ ...config, logLevel: 'warn' }), { migrate: false })
const db = store.db

async function show<T>(title: string, query: string): Promise<T[]> {
  const rows = (await sql.raw<T>(query).execute(db)).rows
  console.log(`\n## ${title}\n${query.trim().replace(/\s+/g, ' ')}`)
  console.table(rows)
  return rows
}

try {
  await show(
    'plan days with a non-empty main (stock_daily rows of the plan job)',
    `select count(*) as plan_days, count(*) filter (where mains > 0) as main_nonempty,
       round(100.0 * count(*) filter (where mains > 0) / count(*), 1) as pct_nonempty,
       round(avg(mains), 1) as avg_main, min(mains) as min_main,
       round(avg(observes), 1) as avg_observe
     from (select trade_date, count(*) filter (where verdict = 'main') as mains,
             count(*) filter (where verdict = 'observe') as observes
           from stock_daily group by trade_date) d`,
  )
  await show(
    'logic states over all daily rows',
    `select logic_state, count(*) as rows, round(100.0 * count(*) / sum(count(*)) over (), 1) as pct
     from stock_daily group by logic_state order by logic_state`,
  )
  await show(
    'observe rows whose state is broken, and how many lack a cause in words',
    `select count(*) as observe_broken,
       count(*) filter (where state_rule not like 'broken: %' or length(state_rule) < 12) as without_cause
     from stock_daily where verdict = 'observe' and logic_state = 'broken'`,
  )
  await show(
    'main rows without a theme (a stock without a theme can reach main)',
    `select count(*) filter (where t.theme is null) as main_no_theme, count(*) as main_rows
     from stock_daily d join tier_scores t using (code, trade_date) where d.verdict = 'main'`,
  )
  for (const scope of ['last date', 'all plan days']) {
    const where =
      scope === 'last date'
        ? 'trade_date = (select max(trade_date) from tier_scores)'
        : 'trade_date in (select distinct trade_date from stock_daily)'
    await show(
      `neutral upside of valued stocks (${scope})`,
      `select count(*) as valued,
         round((percentile_cont(0.5) within group (order by upside))::numeric, 3) as median,
         round((percentile_cont(0.05) within group (order by upside))::numeric, 3) as p05,
         round((percentile_cont(0.95) within group (order by upside))::numeric, 3) as p95,
         round(100.0 * count(*) filter (where upside between -0.6 and 1.5) / count(*), 1) as pct_within_m60_p150,
         round(100.0 * count(*) filter (where upside < 0) / count(*), 1) as pct_negative
       from tier_scores where upside is not null and ${where}`,
    )
    await show(
      `valuation method (${scope})`,
      `select coalesce(valuation_method, 'none') as method, count(*) from tier_scores where ${where}
       group by 1 order by 1`,
    )
  }
  await show(
    'main + observe turnover: share of a day main+observe codes not in the previous plan day',
    `with s as (select trade_date, code from stock_daily where verdict in ('main', 'observe')),
          d as (select trade_date, lag(trade_date) over (order by trade_date) as prev
                from (select distinct trade_date from stock_daily) x)
     select round(avg(new_share)::numeric, 3) as mean_turnover from (
       select d.trade_date, 1.0 * count(*) filter (where p.code is null) / nullif(count(*), 0) as new_share
       from d join s on s.trade_date = d.trade_date
       left join s p on p.trade_date = d.prev and p.code = s.code
       where d.prev is not null group by d.trade_date) t`,
  )
  await show(
    'tradability flags on main/observe rows',
    `select f.flag, count(*) from stock_daily d join tier_scores t using (code, trade_date),
       jsonb_array_elements_text(t.flags) as f(flag)
     where d.verdict in ('main', 'observe') group by f.flag order by f.flag`,
  )
} finally {
  await store.close()
}
