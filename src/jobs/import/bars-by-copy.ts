/**
 * A first load of a tushare bundle's bars: daily.csv and adj_factor.csv, each checked byte by byte as its
 * staging by COPY would be (verbatim-stage.ts), zipped line by line (bars-zip.ts) and written by one COPY into
 * the empty daily_bars (storage/bars-by-copy.ts). Not for a bundle with daily_basic or stk_limit, whose values
 * are joined onto the staged bars. The bundle's ST history (namechange, stock_st) flags the bars afterwards, as
 * the merge's refresh of is_st does for stored bars; its suspensions become bars after the loaded ones. Any
 * doubt and nothing is written: the files are then staged and merged as before, which names a bad row's line.
 */
import type { BarsOutcome } from '../../storage/bars-by-copy.js'
import type { TushareStage } from '../../storage/csv-formats.js'
import type { ImportTransaction } from '../../storage/import.repository.js'
import type { Progress } from '../progress.js'
import { type ZipLayout, zipBars, zipRuns } from './bars-zip.js'
import { verbatimData } from './verbatim-source.js'
import { planVerbatim, textConverter, type VerbatimInput, type VerbatimPlan } from './verbatim-stage.js'

/** Files whose values the merge writes into the bundle's bars as it inserts them from staging. */
const ONTO_BARS: readonly TushareStage[] = ['daily_basic', 'stk_limit']

/** Whether a bundle of `stages` may load its bars by COPY (the store is asked later). */
export function barsByCopyFits(stages: ReadonlySet<string>): boolean {
  return stages.has('daily') && stages.has('adj_factor') && !ONTO_BARS.some((s) => stages.has(s))
}

export async function loadBarsByCopy(
  tx: ImportTransaction,
  daily: VerbatimInput,
  adj: VerbatimInput,
  signal: AbortSignal,
  progress: Progress,
): Promise<BarsOutcome> {
  const dailyPlan = await planVerbatim(daily)
  if ('why' in dailyPlan) return { loaded: false, why: `daily.csv: ${dailyPlan.why}` }
  const adjPlan = await planVerbatim(adj)
  if ('why' in adjPlan) return { loaded: false, why: `adj_factor.csv: ${adjPlan.why}` }
  const layout = zipLayout(dailyPlan, adjPlan)
  if (!layout) return { loaded: false, why: 'daily.csv or adj_factor.csv lacks its key or factor' }
  progress.start('daily.csv + adj_factor.csv', daily.size + adj.size, 'bytes')
  progress.tick(dailyPlan.header.dataStart + adjPlan.header.dataStart)
  const bars = verbatimData(daily.path, dailyPlan.header.dataStart, dailyPlan.rules, signal, progress)
  const factors = verbatimData(adj.path, adjPlan.header.dataStart, adjPlan.rules, signal, progress)
  const zipped = zipBars(bars.chunks, factors.chunks, layout)
  const factor = adjPlan.plan.columns[adjPlan.fields[layout.factor]!]!
  const outcome = await tx.loadBars({
    columns: [...dailyPlan.plan.columns, factor],
    checks: [...daily.spec.checks, ...adj.spec.checks],
    data: zipped.chunks,
    whole: () => bars.plain() && factors.plain() && zipped.zipped(),
    codes: zipped.codes,
    convert: textConverter(dailyPlan.plan),
  })
  progress.done(outcome.loaded ? `daily.csv + adj_factor.csv: ${outcome.rows} bars loaded` : undefined)
  return outcome
}

/** The zip of the two files' fields; undefined when a key or the factor is not in them. */
function zipLayout(daily: VerbatimPlan, adj: VerbatimPlan): ZipLayout | undefined {
  const field = (plan: VerbatimPlan, name: string): number =>
    plan.fields.findIndex((column) => column !== null && plan.plan.columns[column]!.name === name)
  const dailyKey = [field(daily, 'code'), field(daily, 'trade_date')] as const
  const adjKey = [field(adj, 'code'), field(adj, 'trade_date')] as const
  const factor = field(adj, 'adj_factor')
  if ([...dailyKey, ...adjKey, factor].some((i) => i < 0) || adj.shifts.some((s) => s !== 0)) return undefined
  if (daily.plan.columns.some((c) => c.name === 'adj_factor')) return undefined
  return {
    dailyWidth: daily.fields.length,
    adjWidth: adj.fields.length,
    dailyKey,
    adjKey,
    runs: zipRuns(daily.fields, daily.shifts),
    factor,
  }
}
