import { mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { parse } from 'csv-parse/sync'
import { afterAll, describe, expect, it } from 'vitest'
import type { Board } from '../../src/domain/codes.js'
import { limitRatio } from '../../src/domain/limit-rules.js'
import { computeOutcomes, type EntryBar, type ExitBar, limitUpPrice } from '../../src/domain/outcomes.js'
import { type EvalDay, evaluateTrackRecord } from '../../src/domain/track-record.js'
import { demoUniverse, generateDemoMarket } from '../../src/jobs/demo/generate.js'
import { silentProgress } from '../../src/jobs/progress.js'

/**
 * The planted factor of the demo market, scored as the plan would on T (it is known at T's close), against the
 * outcomes the evaluator computes from the generated bars: the evaluator finds the IC the README states, and
 * finds nothing on `--signal 0`.
 */
const roots: string[] = []
afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true })
})

async function plantedRecord(options: { stocks: number; days: number; seed: number; signal: number }, horizon: number) {
  const root = await mkdtemp(path.join(os.tmpdir(), 'stockplan-signal-'))
  roots.push(root)
  await generateDemoMarket(root, options, silentProgress)
  const universe = demoUniverse(options)
  const board = new Map(universe.securities.map((s) => [s.code, { board: s.board as Board, index: s.index }]))
  const bars = parse(await readFile(path.join(root, 'bars.csv'), 'utf8'), { columns: true }) as Array<
    Record<string, string>
  >
  const byDate = new Map<string, Map<string, Record<string, string>>>()
  for (const b of bars) {
    const day = byDate.get(b.trade_date!) ?? new Map()
    day.set(b.code!, b)
    byDate.set(b.trade_date!, day)
  }
  const calendar = universe.calendar
  const days: EvalDay[] = []
  // plan dates from day 40 (20-day momentum and a report known) to the last with a closed window
  for (let t = 40; t + horizon < calendar.length; t++) {
    const onT = byDate.get(calendar[t]!)!
    const codes = [...onT.keys()].filter((c) => onT.get(c)!.is_suspended !== 'true')
    const entry = new Map<string, EntryBar>()
    const exit = new Map<string, ExitBar>()
    for (const [code, b] of byDate.get(calendar[t + 1]!)!) {
      const pre = Number(b.pre_close)
      entry.set(code, {
        open: Number(b.open),
        adjFactor: Number(b.adj_factor),
        suspended: b.is_suspended === 'true',
        // as the generator does: every simulated day has its board's limit, new listings included
        limitUp: limitUpPrice(
          pre,
          limitRatio(board.get(code)!.board, b.is_st === 'true', calendar[t + 1]!, Number.POSITIVE_INFINITY)!,
        ),
      })
    }
    for (const [code, b] of byDate.get(calendar[t + horizon]!)!)
      exit.set(code, { close: Number(b.close), adjFactor: Number(b.adj_factor) })
    const outcomes = computeOutcomes({
      date: calendar[t]!,
      horizon,
      entryDate: calendar[t + 1]!,
      exitDate: calendar[t + horizon]!,
      codes,
      entry,
      exit,
      benchmark: 'x',
      benchmarkWindow: { open: 1, close: 1 },
      regime: null,
    })
    days.push({
      date: calendar[t]!,
      exitDate: calendar[t + horizon]!,
      regime: null,
      benchRet: 0,
      rows: outcomes.map((o) => ({
        code: o.code,
        // what the plan knows at T's close: the factor that sets T+1's expected return
        score: universe.planted.factor[board.get(o.code)!.index]![t + 1]!,
        components: {},
        decision: null,
        logicState: null,
        theme: null,
        tradable: o.tradable,
        reason: o.reason,
        ret: o.ret,
      })),
    })
  }
  return evaluateTrackRecord(days, { horizon, components: [] })
}

describe('the demo market has the documented planted signal and no other', () => {
  it('recovers the planted IC: target 0.08 at h = 5 and 0.035 at h = 1 (README "Demo market")', async () => {
    const h5 = await plantedRecord({ stocks: 400, days: 140, seed: 42, signal: 1 }, 5)
    const h1 = await plantedRecord({ stocks: 400, days: 140, seed: 42, signal: 1 }, 1)
    console.info(`planted IC h5 ${h5.ic.score.mean} t ${h5.ic.score.t}; h1 ${h1.ic.score.mean} t ${h1.ic.score.t}`)
    expect(h5.ic.score.mean).toBeGreaterThan(0.06)
    expect(h5.ic.score.mean).toBeLessThan(0.1)
    expect(h5.ic.score.t).toBeGreaterThan(4)
    expect(h1.ic.score.mean).toBeGreaterThan(0.02)
    expect(h1.ic.score.mean).toBeLessThan(0.05)
    expect(h1.ic.score.t).toBeGreaterThan(3)
    expect(h5.quintiles.mean_ret[4]!).toBeGreaterThan(h5.quintiles.mean_ret[0]!)
  }, 60_000)

  // h = 1: windows do not overlap, so the t is the plain one and |t| > 2 has the textbook 5% chance
  it('with --signal 0 the same factor predicts nothing: |t| > 2 on at most 1 of 10 seeds', async () => {
    const ts: number[] = []
    for (let seed = 1; seed <= 10; seed++) {
      const r = await plantedRecord({ stocks: 150, days: 100, seed, signal: 0 }, 1)
      ts.push(r.ic.score.t!)
    }
    console.info(`null t by seed: ${ts.map((t) => t.toFixed(2)).join(' ')}`)
    expect(ts.filter((t) => Math.abs(t) > 2).length).toBeLessThanOrEqual(1)
  }, 120_000)
})
