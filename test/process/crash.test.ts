import { type ChildProcess, spawn } from 'node:child_process'
import { watch } from 'node:fs'
import { readdir, readFile, stat } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { generateDemoMarket } from '../../src/jobs/demo/generate.js'
import { silentProgress } from '../../src/jobs/progress.js'
import { withChainLock } from '../../src/storage/chain-lock.js'
import { parseSnapshot } from '../../src/storage/plan-files.js'
import { createDemoDatabase, type DemoMarket } from '../support/demo-market.js'
import { startServerProcess } from '../support/server-process.js'
import type { TestDatabase } from '../support/test-db.js'

interface Exit {
  code: number | null
  signal: string | null
  output: string
}

describe('crashes, concurrent chains and reruns', () => {
  let t: TestDatabase
  let demo: DemoMarket
  let env: Record<string, string>

  function cli(args: string[], killWhen?: (child: ChildProcess) => Promise<unknown>): Promise<Exit> {
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
      void killWhen?.(child)
      child.on('exit', (code, signal) => resolve({ code, signal, output }))
    })
  }

  /**
   * Kills `child` with SIGKILL the moment another session holds an open transaction that has written (it has a
   * transaction id) and whose statement matches `statement`; resolves true when the kill landed there, false when
   * the child ended first. Nothing else writes to this test's database while it runs.
   */
  async function killWhileWriting(child: ChildProcess, statement: RegExp): Promise<boolean> {
    while (child.exitCode === null && child.signalCode === null) {
      const { rows } = await t.pool.query<{ query: string }>(
        `select query from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid() and backend_xid is not null`,
      )
      if (rows.some((r) => statement.test(r.query))) return child.kill('SIGKILL')
    }
    return false
  }

  /** Kills `child` when a temp file (an atomic write under way) appears in `dir`; resolves with its name, if any. */
  function killWhenTempAppears(child: ChildProcess, dir: string): Promise<string | undefined> {
    return new Promise((resolve) => {
      const watcher = watch(dir, (_event, name) => {
        if (name?.startsWith('.') && name.endsWith('.tmp') && child.kill('SIGKILL')) {
          watcher.close()
          resolve(name)
        }
      })
      child.once('exit', () => {
        watcher.close()
        resolve(undefined)
      })
    })
  }

  /** The row versions of the date's daily rows: a committed rewrite changes every xmin, a rolled-back one none. */
  async function dailyVersions(date: string): Promise<string> {
    const { rows } = await t.pool.query<{ xmins: string }>(
      "select string_agg(xmin::text, ',' order by code) as xmins from stock_daily where trade_date = $1",
      [date],
    )
    return rows[0]?.xmins ?? ''
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
    ;[t, demo] = await createDemoDatabase({ history: 2 })
    env = { DATABASE_URL: t.url, PLAN_DATA_DIR: demo.planDataDir, LOG_LEVEL: 'warn' }
  })
  afterAll(async () => {
    await demo.cleanup()
    await t.drop()
  })

  it('kill -9 while plan rewrites the daily rows leaves whole new files and the earlier rows; a rerun gives the same plan', async () => {
    const date = demo.planned.at(-1)!
    const before = await dailySignature(date)
    const planBefore = (await demo.services.plans.getFull(date)).rows
    const snapshot = demo.services.files.snapshotPath(date)
    let landed = 0
    for (let attempt = 0; attempt < 4 && landed === 0; attempt++) {
      const versions = await dailyVersions(date)
      const snapshotBefore = (await stat(snapshot)).mtimeMs
      let hit = false
      const killed = await cli(['plan', '--date', date], async (child) => {
        hit = await killWhileWriting(child, /stock_daily/i)
      })
      if (!hit || killed.signal !== 'SIGKILL') continue // the plan ended before the kill: try again
      const after = await dailyVersions(date)
      const changed = after.split(',').filter((xmin, i) => xmin !== versions.split(',')[i]).length
      // the rewrite committed between seeing it under way and the kill: every row is new, nothing was torn
      if (changed === versions.split(',').length) continue
      landed++
      // half done: the files (written first) are new, the rows' transaction was under way and rolled back
      expect((await stat(snapshot)).mtimeMs).toBeGreaterThan(snapshotBefore)
      expect(after, 'no row of the killed rewrite is visible').toBe(versions)
      await assertNoTornFiles()
      expect(await dailySignature(date)).toBe(before)
    }
    expect(landed, 'a kill landed while the daily rows were being written').toBe(1)
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
      { stocks: 400, days: 80, seed: 99, endDate: '2025-06-30' },
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
    let hit = false
    const killed = await cli(['import', '--dir', dir], async (child) => {
      hit = await killWhileWriting(child, /daily_bars/i)
    })
    expect(killed.signal).toBe('SIGKILL')
    expect(hit, 'the kill landed while the bars file was being copied').toBe(true)
    // the bars file was half copied when the process died: none of it is visible
    expect(await count('daily_bars')).toBe(bars0)
    expect([basics0, basics0 + other.files['basics.csv']!]).toContain(await count('daily_basics'))
    const rerun = await cli(['import', '--dir', dir])
    expect(rerun.code, rerun.output).toBe(0)
    expect(await count('daily_bars')).toBe(bars0 + other.files['bars.csv']!)
    expect(await count('daily_basics')).toBe(basics0 + other.files['basics.csv']!)
  }, 150_000) // generates a market and imports it twice

  it('kill -9 during POST /plan/refresh, mid-way through writing the plan file, never leaves a torn plan file', async () => {
    const date = demo.planned.at(-1)!
    const plans = path.join(demo.planDataDir, 'plans')
    const planFile = path.join(plans, (await readdir(plans)).find((n) => n.startsWith(date))!)
    let landed = 0
    for (let attempt = 0; attempt < 4 && landed === 0; attempt++) {
      const whole = await readFile(planFile, 'utf8')
      const server = await startServerProcess({ DATABASE_URL: t.url, PLAN_DATA_DIR: demo.planDataDir })
      const temp = killWhenTempAppears(server.child, plans)
      const pending = fetch(`${server.url}/plan/refresh?date=${date}`, { method: 'POST' }).catch(() => undefined)
      const tempName = await temp
      server.child.kill('SIGKILL')
      await server.exited
      await pending
      await assertNoTornFiles()
      // half done: the dead writer's temp file is still there, the plan file is the whole earlier one
      if (tempName && (await readdir(plans)).includes(tempName)) {
        landed++
        expect(await readFile(planFile, 'utf8')).toBe(whole)
      }
    }
    expect(landed, 'a kill landed between creating and renaming the temp file').toBe(1)
  })

  it('a second chain for the same date waits for the lock, or is refused with --no-wait; never both at once', async () => {
    const date = demo.planned.at(-1)!
    let release!: () => void
    const released = new Promise<void>((r) => {
      release = r
    })
    let releasedAt = 0
    let entered!: () => void
    const held = new Promise<void>((r) => {
      entered = r
    })
    const holding = withChainLock(t.pool, date, 'wait', new AbortController().signal, async () => {
      entered()
      await released
      releasedAt = Date.now()
    })
    await held
    const refused = await cli(['chain', '--date', date, '--no-wait'])
    expect(refused.code).toBe(1)
    expect(refused.output).toMatch(/another chain run holds the lock/)
    const lockTriers = async (): Promise<number[]> =>
      (
        await t.pool.query<{ pid: number }>(
          `select pid from pg_stat_activity
            where datname = current_database() and query like 'select pg_try_advisory_lock%'`,
        )
      ).rows.map((r) => r.pid)
    const earlier = new Set(await lockTriers())
    const waiting = cli(['chain', '--date', date])
    // the second chain is waiting once a new session has asked for the lock (and been refused: we hold it)
    while (!(await lockTriers()).some((pid) => !earlier.has(pid))) await new Promise((r) => setImmediate(r))
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
