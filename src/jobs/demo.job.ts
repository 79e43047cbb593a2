import type { Config } from '../config.js'
import type { Logger } from '../logger.js'
import { type DemoMarker, demoMarketDir, readDemoMarker, writeDemoMarker } from '../storage/demo-marker.js'
import { createImportStore } from '../storage/import.repository.js'
import type { MarketDataRepository } from '../storage/market-data.repository.js'
import type { PlanFiles } from '../storage/plan-files.js'
import type { Store } from '../storage/store.js'
import type { TierRepository } from '../storage/tier.repository.js'
import { writeTradingCalendar } from '../storage/trading-calendar.repository.js'
import { demoCalendarDays, tradingCalendar } from './demo/calendar.js'
import { DEMO_DEFAULTS, type DemoOptions, generateDemoMarket } from './demo/generate.js'
import { importDirectory } from './import/import-job.js'
import type { ChainStep, JobResult } from './job.js'
import type { Progress } from './progress.js'
import type { ReplayArgs } from './replay.job.js'

/** What the demo needs from the services: exactly this, never the whole set. */
export interface DemoDeps {
  readonly config: Pick<Config, 'demoDataDir'>
  readonly log: Logger
  readonly tiers: Pick<TierRepository, 'latestDate'>
  readonly files: Pick<PlanFiles, 'snapshotStamp'>
  readonly market: Pick<MarketDataRepository, 'calendar'>
  readonly chain: ChainStep
  /** The in-process replay of the chain's steps over past days (replay.job.ts). */
  readonly replay: (args: ReplayArgs, signal: AbortSignal, progress?: Progress) => Promise<JobResult>
  readonly steps: Readonly<{ 'push-pool': ChainStep }>
}

export interface DemoArgs extends DemoOptions {
  /** Generate and import again even when the same demo is already in the store. */
  readonly regenerate: boolean
  /** How many of the last trading days to replay the chain for (logic states and the track record need them). */
  readonly history: number
}

/** Reuse when the same demo was imported and planned before: `npm run demo` then starts in seconds. */
async function isReusable(services: DemoDeps, dir: string, args: DemoArgs): Promise<DemoMarker | undefined> {
  const marker = await readDemoMarker(dir)
  const signal = args.signal ?? DEMO_DEFAULTS.signal
  if (
    !marker ||
    marker.stocks !== args.stocks ||
    marker.days !== args.days ||
    marker.seed !== args.seed ||
    marker.signal !== signal ||
    marker.history !== args.history
  )
    return undefined
  const [latest, snapshot] = await Promise.all([
    services.tiers.latestDate(),
    services.files.snapshotStamp(marker.lastDate),
  ])
  return latest === marker.lastDate && snapshot !== undefined ? marker : undefined
}

/**
 * The demo's own trading calendar, from its first bar on and ahead of its last one: the plan due and the alerts read
 * the stored calendar as they would a synced one.
 */
async function storeDemoCalendar(store: Store, lastDate: string, days: number): Promise<void> {
  const first = tradingCalendar(lastDate, days)[0] ?? lastDate
  await writeTradingCalendar(store.db, demoCalendarDays(first, lastDate))
}

/** Generates the synthetic market, imports it and runs the chain for its last days. */
export async function runDemo(
  services: DemoDeps,
  store: Store,
  progress: Progress,
  args: DemoArgs,
  signal: AbortSignal,
): Promise<{ summary: string; lastDate: string; reused: boolean }> {
  const dir = demoMarketDir(services.config.demoDataDir)
  if (!args.regenerate) {
    const reused = await isReusable(services, dir, args)
    if (reused) {
      // a demo loaded before it stored its calendar gets it now
      await storeDemoCalendar(store, reused.lastDate, reused.days)
      return {
        summary: `demo ${reused.lastDate}: reusing the imported demo market in ${dir}`,
        lastDate: reused.lastDate,
        reused: true,
      }
    }
  }
  const generated = await generateDemoMarket(dir, args, progress)
  await importDirectory(
    { imports: createImportStore(store.pool), log: services.log, progress },
    { dir, format: 'native' },
    signal,
  )
  await storeDemoCalendar(store, generated.lastDate, args.days)
  const calendar = await services.market.calendar(generated.lastDate)
  const dates = calendar.slice(-Math.max(1, args.history))
  // the chain's own steps, day after day in this process: tier scores, plans, logic states and outcomes
  await services.replay({ from: dates[0]!, to: dates.at(-1)!, restart: true }, signal, progress)
  await services.steps['push-pool']({ date: dates.at(-1)! }, signal)
  const marker: DemoMarker = {
    stocks: args.stocks,
    days: args.days,
    seed: args.seed,
    signal: args.signal ?? DEMO_DEFAULTS.signal,
    history: args.history,
    lastDate: generated.lastDate,
  }
  await writeDemoMarker(dir, marker)
  return {
    summary: `demo ${generated.lastDate}: ${args.stocks} stocks x ${args.days} days imported, chain replayed for ${dates.length} days`,
    lastDate: generated.lastDate,
    reused: false,
  }
}
