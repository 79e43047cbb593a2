import { Gauge, type Registry } from 'prom-client'
import { dateSeconds } from '../domain/plan-due.js'
import type { Skill } from '../domain/skill.js'
import type { OperationalReadings } from './operational-readings.js'

/** The chain's steps, always exposed (0 = never seen), so a rule on a step that never ran still has a series. */
export const CHAIN_STEPS = ['sync', 'build', 'plan', 'push-pool', 'outcomes'] as const

interface Source {
  readonly readings: () => Promise<OperationalReadings>
  readonly skill: () => Skill
}

const seconds = (at: Date | number | undefined): number =>
  at === undefined ? 0 : (typeof at === 'number' ? at : at.getTime()) / 1000

/**
 * The gauges an operator's alert rules and dashboard read (ops/prometheus/rules.yml). Dates are the Unix seconds of
 * their 00:00 UTC, so two dates compare with `<` and differ by 86400 a day; moments are Unix seconds.
 */
export function registerOperationalMetrics(registry: Registry, source: () => Source | undefined): void {
  const gauge = (name: string, help: string, value: (r: OperationalReadings) => number): Gauge =>
    // one read of the store serves every gauge of a scrape (the readings are kept for a few seconds)
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        const readings = await source()?.readings()
        if (readings) this.set(value(readings))
      },
    })
  const perStep = (name: string, help: string, value: (r: OperationalReadings, step: string) => number): Gauge =>
    new Gauge({
      name,
      help,
      labelNames: ['step'],
      registers: [registry],
      async collect() {
        const readings = await source()?.readings()
        if (!readings) return
        const steps = new Set<string>([...CHAIN_STEPS, ...readings.steps.map((s) => s.step)])
        for (const step of steps) this.set({ step }, value(readings, step))
      },
    })
  const step = (r: OperationalReadings, name: string) => r.steps.find((s) => s.step === name)

  gauge(
    'stockplan_store_up',
    'Whether the store answered the last read for /metrics within its deadline (1 or 0)',
    (r) => (r.storeUp ? 1 : 0),
  )
  gauge(
    'stockplan_plan_latest_date_timestamp_seconds',
    "Data date of the latest published plan (the tier table's latest date), as Unix seconds of its 00:00 UTC; 0 if none",
    (r) => (r.latestPlanDate === undefined ? 0 : dateSeconds(r.latestPlanDate)),
  )
  gauge(
    'stockplan_plan_expected_date_timestamp_seconds',
    'Data date of the plan the latest session whose 08:45 (Asia/Shanghai) has passed needed, from the trading calendar (NaN past it)',
    (r) => (r.due.expectedDate === undefined ? Number.NaN : dateSeconds(r.due.expectedDate)),
  )
  gauge(
    'stockplan_plan_next_date_timestamp_seconds',
    'Data date of the plan the next session needs: the last closed session, whose plan the chain builds after the close (NaN past the stored calendar)',
    (r) => (r.due.nextDate === undefined ? Number.NaN : dateSeconds(r.due.nextDate)),
  )
  new Gauge({
    name: 'stockplan_plan_rows',
    help: "Rows of the latest plan's default cut by list (main, observe; NaN until the plan step has written the date) and codes of its pool file (pool; NaN without one)",
    labelNames: ['list'],
    registers: [registry],
    async collect() {
      const readings = await source()?.readings()
      if (!readings) return
      const rows = readings.planRows
      this.set({ list: 'main' }, rows.main ?? Number.NaN)
      this.set({ list: 'observe' }, rows.observe ?? Number.NaN)
      this.set({ list: 'pool' }, rows.pool ?? Number.NaN)
    },
  })
  gauge(
    'stockplan_trading_calendar_future_sessions',
    'Trading sessions after today (Asia/Shanghai) in the stored trading calendar: how far ahead the plan due is known',
    (r) => r.futureSessions,
  )
  gauge(
    'stockplan_session_last_close_timestamp_seconds',
    'When the latest trading session that has closed closed (15:00 Asia/Shanghai), from the trading calendar',
    (r) => (r.due.lastCloseAtMs === undefined ? Number.NaN : r.due.lastCloseAtMs / 1000),
  )
  perStep(
    'stockplan_chain_step_last_start_timestamp_seconds',
    'When a scheduler run last started this chain step (0 if never in the last 35 days)',
    (r, s) => seconds(step(r, s)?.lastStartAt),
  )
  perStep(
    'stockplan_chain_step_last_success_timestamp_seconds',
    'When this chain step last finished successfully in a scheduler run (0 if never in the last 35 days)',
    (r, s) => seconds(step(r, s)?.lastSuccessAt),
  )
  perStep(
    'stockplan_chain_step_last_failure_timestamp_seconds',
    'When a scheduler run last failed, timed out or was killed in this chain step (0 if never in the last 35 days)',
    (r, s) => seconds(step(r, s)?.lastFailureAt),
  )
  perStep(
    'stockplan_chain_step_last_success_duration_seconds',
    "Duration of this chain step's last successful run (NaN if none)",
    (r, s) => step(r, s)?.lastSuccessSeconds ?? Number.NaN,
  )
  gauge(
    'stockplan_sync_oldest_incomplete_date_timestamp_seconds',
    'The oldest synced trading day still missing data (late adjustment factors or valuations), as Unix seconds of its 00:00 UTC; 0 if none',
    (r) => (r.oldestIncompleteSyncedDay === undefined ? 0 : dateSeconds(r.oldestIncompleteSyncedDay)),
  )
  gauge(
    'stockplan_callback_outbox_depth',
    'Run results not yet delivered to the XXL-JOB admin (all replicas, from the store)',
    (r) => r.outbox.depth,
  )
  gauge(
    'stockplan_callback_outbox_oldest_age_seconds',
    'Age of the oldest undelivered run result (0 when none waits)',
    (r) =>
      r.outbox.oldestCreatedAt === undefined
        ? 0
        : Math.max(0, (r.readAtMs - r.outbox.oldestCreatedAt.getTime()) / 1000),
  )
  const skillGauge = (name: string, help: string, value: (s: Skill) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        const skill = source()?.skill()
        if (skill) this.set(value(skill))
      },
    })
  skillGauge(
    'stockplan_track_record_rolling_rank_ic',
    "Mean daily rank IC of the plan's score over its last 20 plan days with outcomes (5-day horizon; NaN: none yet)",
    (s) => s.rollingRankIc,
  )
  skillGauge(
    'stockplan_track_record_main_drawdown_ratio',
    "The main book's net value over the investable universe's, below its peak over the last year, as a fraction (after costs, 100 M CNY)",
    (s) => s.mainDrawdown,
  )
}
