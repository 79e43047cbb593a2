import { spawn } from 'node:child_process'
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { generateDemoMarket } from '../../src/jobs/demo/generate.js'
import { silentProgress } from '../../src/jobs/progress.js'
import { withChainLock } from '../../src/storage/chain-lock.js'
import { parseSnapshot } from '../../src/storage/plan-files.js'
import { type DemoMarket, seedDemoMarket } from '../support/demo-market.js'
import { startServerProcess } from '../support/server-process.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'

interface Exit {
  code: number | null
  signal: string | null
  output: string
}

describe('crashes, concurrent chains and reruns', () => {
  let t: TestDatabase
  let demo: DemoMarket
  let env: Record<string, string>

  function cli(args: string[], killAfterMs?: number): Promise<Exit> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, ['bin/stockplan.js', ...args], {
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let output = ''
      child.stdout.on('data', (c: Buffer) => {
        output += c.toString()
      })
      child.stderr.on('data', (c: Buffer) => {
        output += c.toString()
      })
      if (killAfterMs !== undefined) setTimeout(() => child.kill('SIGKILL'), killAfterMs)
      child.on('exit', (code, signal) => resolve({ code, signal, output }))
    })
  }

  /** Every visible file under PLAN_DATA_DIR is whole: snapshots parse for their date, plans and pools are complete. */
  async function assertNoTornFiles(): Promise<void> {
    for (const sub of ['snapshots', 'plans', 'pool']) {
      const dir = path.join(demo.planDataDir, sub)
      for (const name of await readdir(dir).catch(() => [] as string[])) {
        if (name.startsWith('.')) continue // a dead writer's temp file: never read, swept by the next write
        const text = await readFile(path.join(dir, name), 'utf8')
        const date = name.slice(0, 10)
        if (sub === 'snapshots') expect(parseSnapshot(text, date).ok, name).toBe(true)
        if (sub === 'plans') expect(text, name).toMatch(/^# Stock plan for data date [\s\S]*## Watch/)
        if (sub === 'pool') expect(JSON.parse(text).date, name).toBe(date)
      }
    }
  }

  async function dailySignature(date: string): Promise<string> {
    const rows = await t.db
      .selectFrom('stock_daily')
      .select(['code', 'verdict', 'card_rank', 'logic_state', 'score_ema'])
      .where('trade_date', '=', date)
      .orderBy('code')
      .execute()
    return JSON.stringify(rows)
  }

  async function tierSignature(date: string): Promise<string> {
    const rows = await t.db
      .selectFrom('tier_scores')
      .select(['code', 'score', 'rank', 'tier', 'theme', 'segment', 'upside', 'heat', 'transmission', 'graph_evidence'])
      .where('trade_date', '=', date)
      .orderBy('code')
      .execute()
    return JSON.stringify(rows)
  }

  beforeAll(async () => {
    t = await createTestDatabase()
    demo = await seedDemoMarket(t, { stocks: 1500, days: 80, history: 2 })
    env = { DATABASE_URL: t.url, PLAN_DATA_DIR: demo.planDataDir, LOG_LEVEL: 'warn' }
  })
  afterAll(async () => {
    await demo.cleanup()
    await t.drop()
  })

  it('kill -9 in the middle of plan leaves whole files and the earlier complete rows; a rerun gives the same plan', async () => {
    const date = demo.planned.at(-1)!
    const before = await dailySignature(date)
    const planBefore = (await demo.services.plans.getFull(date)).rows
    for (const delay of [700, 900, 1100, 1300]) {
      await cli(['plan', '--date', date], delay)
      await assertNoTornFiles()
      const after = await dailySignature(date)
      expect(after).toBe(before) // same inputs: either untouched or replaced whole by identical rows
    }
    const rerun = await cli(['plan', '--date', date])
    expect(rerun.code, rerun.output).toBe(0)
    await assertNoTornFiles()
    expect(await dailySignature(date)).toBe(before)
    expect((await readdir(path.join(demo.planDataDir, 'snapshots'))).filter((n) => n.startsWith('.'))).toEqual([])
    expect((await demo.services.plans.getFull(date)).rows).toEqual(planBefore)
  })

  it('kill -9 in the middle of import leaves each file all-or-nothing', async () => {
    const dir = path.join(demo.dataDir, '..', 'other-market')
    const other = await generateDemoMarket(
      dir,
      { stocks: 1500, days: 80, seed: 99, endDate: '2025-06-30' },
      silentProgress,
    )
    const count = async (table: 'daily_bars' | 'daily_basics' | 'securities') =>
      Number(
        (
          await t.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      )
    const bars0 = await count('daily_bars')
    const basics0 = await count('daily_basics')
    const killed = await cli(['import', '--dir', dir], 2500)
    expect(killed.signal).toBe('SIGKILL')
    expect([bars0, bars0 + other.files['bars.csv']!]).toContain(await count('daily_bars'))
    expect([basics0, basics0 + other.files['basics.csv']!]).toContain(await count('daily_basics'))
    const rerun = await cli(['import', '--dir', dir])
    expect(rerun.code, rerun.output).toBe(0)
    expect(await count('daily_bars')).toBe(bars0 + other.files['bars.csv']!)
    expect(await count('daily_basics')).toBe(basics0 + other.files['basics.csv']!)
  })

  it('kill -9 during POST /plan/refresh never leaves a torn plan file', async () => {
    const date = demo.planned.at(-1)!
    for (const delay of [0, 5, 20]) {
      const server = await startServerProcess({ DATABASE_URL: t.url, PLAN_DATA_DIR: demo.planDataDir })
      const pending = fetch(`${server.url}/plan/refresh?date=${date}`, { method: 'POST' }).catch(() => undefined)
      await new Promise((r) => setTimeout(r, delay))
      server.child.kill('SIGKILL')
      await server.exited
      await pending
      await assertNoTornFiles()
    }
  })

  it('a second chain for the same date waits for the lock, or is refused with --no-wait; never both at once', async () => {
    const date = demo.planned.at(-1)!
    let release!: () => void
    const released = new Promise<void>((r) => {
      release = r
    })
    let releasedAt = 0
    const holding = withChainLock(t.pool, date, 'wait', new AbortController().signal, async () => {
      await released
      releasedAt = Date.now()
    })
    await new Promise((r) => setTimeout(r, 200))
    const refused = await cli(['chain', '--date', date, '--no-wait'])
    expect(refused.code).toBe(1)
    expect(refused.output).toMatch(/another chain run holds the lock/)
    const waiting = cli(['chain', '--date', date])
    await new Promise((r) => setTimeout(r, 2500))
    release()
    await holding
    const waited = await waiting
    expect(waited.code, waited.output).toBe(0)
    const build = await t.db
      .selectFrom('builds')
      .select(['started_at'])
      .where('trade_date', '=', date)
      .orderBy('started_at', 'desc')
      .executeTakeFirstOrThrow()
    expect(new Date(build.started_at).getTime()).toBeGreaterThanOrEqual(releasedAt - 50)
  })

  it('rerunning the chain for a date gives the same tier rows, main and observe', async () => {
    const date = demo.planned.at(-1)!
    const tiers = await tierSignature(date)
    const plan = await demo.services.plans.getPlan({
      date,
      sizes: { top: 20, obs_top: 10, theme_cap: 5 },
      nocache: true,
    })
    const rerun = await cli(['chain', '--date', date])
    expect(rerun.code, rerun.output).toBe(0)
    expect(await tierSignature(date)).toBe(tiers)
    const again = await demo.services.plans.getPlan({
      date,
      sizes: { top: 20, obs_top: 10, theme_cap: 5 },
      nocache: true,
    })
    expect(again.body.main).toEqual(plan.body.main)
    expect(again.body.observe).toEqual(plan.body.observe)
  })
})
