/**
 * A `daily` that lacks codes that traded is an incomplete day on every path (issue 49): a first sync, a rerun of
 * stored days and the late days asked again. The stand-in (port 0) answers the golden bundle with some codes'
 * bars not loaded yet; their factors and suspensions say they traded (see src/jobs/sync-traded-codes.ts).
 */
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { runSync, type SyncArgs } from '../../src/jobs/sync.job.js'
import { captureLog } from '../support/log-capture.js'
import { rows } from '../support/queries.js'
import { standInClient, syncDeps } from '../support/sync-store.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'
import { NO_PERMISSION_MSG, startTushareStandIn, type TushareStandIn } from '../support/tushare-stand-in.js'

const GOLDEN = fileURLToPath(new URL('../data/tushare/bundle/', import.meta.url))

describe('a partial daily', () => {
  let standIn: TushareStandIn
  const stores: TestDatabase[] = []
  const captured = captureLog('warn')
  const sync = (t: TestDatabase, today: string, args: SyncArgs) => {
    const client = standInClient(standIn.url, 'tok-partial-daily', captured.log)
    return runSync(syncDeps(t, client, captured.log, today), args, new AbortController().signal)
  }
  const store = async () => {
    const t = await createTestDatabase()
    stores.push(t)
    return t
  }
  const recorded = (t: TestDatabase) =>
    rows(t, `select trade_date::text as day, interface, missing from sync_incomplete_days order by 1, 2`)
  const barsOf = (t: TestDatabase, day: string) =>
    rows(t, `select count(*)::int as n from daily_bars where trade_date = '${day}' and not is_suspended`)

  beforeAll(async () => {
    standIn = await startTushareStandIn(GOLDEN)
  })
  afterEach(() => {
    standIn.late.clear()
    standIn.fail.clear()
  })
  afterAll(async () => {
    await standIn.close()
    await Promise.all(stores.map((t) => t.drop()))
  })

  it('a first sync records the day incomplete, and the next sync asks again and completes it', async () => {
    const t = await store()
    // 2 of the 10 codes that traded on the 17th (11 listed, 000540.SZ suspended) not loaded yet
    standIn.late.set('daily', { day: '20240117', codes: ['600519.SH', '000001.SZ'] })
    const first = await sync(t, '2024-01-17', { from: '2024-01-15', to: '2024-01-17' })
    expect(first.days).toEqual(['2024-01-15', '2024-01-16', '2024-01-17'])
    expect(first.incomplete).toEqual([{ day: '2024-01-17', missing: { daily: 2 } }])
    expect(first.summary).toContain('incomplete (asked again by the next sync): 2024-01-17 (daily 2 codes)')
    expect(await recorded(t)).toEqual([{ day: '2024-01-17', interface: 'daily', missing: 2 }])
    expect(await barsOf(t, '2024-01-17')).toEqual([{ n: 8 }])

    standIn.late.clear()
    const next = await sync(t, '2024-01-18', {})
    expect(next.days).toEqual(['2024-01-18'])
    expect(next.completed).toEqual(['2024-01-17'])
    expect(await recorded(t)).toEqual([])
    expect(await barsOf(t, '2024-01-17')).toEqual([{ n: 10 }])
  })

  it('a rerun of a stored day whose daily now lacks a code records the day incomplete', async () => {
    const t = await store()
    await sync(t, '2024-01-16', { from: '2024-01-15', to: '2024-01-16' })
    expect(await recorded(t)).toEqual([])
    standIn.late.set('daily', { day: '20240116', codes: ['300750.SZ'] })
    const rerun = await sync(t, '2024-01-16', { from: '2024-01-16', to: '2024-01-16' })
    expect(rerun.incomplete).toEqual([{ day: '2024-01-16', missing: { daily: 1 } }])
    expect(await recorded(t)).toEqual([{ day: '2024-01-16', interface: 'daily', missing: 1 }])
  })

  it('a late day asked again with a partial daily stays incomplete, for the codes daily now lacks', async () => {
    const t = await store()
    standIn.late.set('adj_factor', { day: '20240117', codes: ['600519.SH'] })
    await sync(t, '2024-01-17', { from: '2024-01-16', to: '2024-01-17' })
    expect(await recorded(t)).toEqual([{ day: '2024-01-17', interface: 'adj_factor', missing: 1 }])
    // the next night the factor is there, but the 17th's daily answers without 000001.SZ
    standIn.late.clear()
    standIn.late.set('daily', { day: '20240117', codes: ['000001.SZ'] })
    const next = await sync(t, '2024-01-18', {})
    expect(next.completed).toEqual([])
    expect(await recorded(t)).toEqual([{ day: '2024-01-17', interface: 'daily', missing: 1 }])
  })

  it('counts no suspended or delisted code, and without suspend_d takes no factor as a trade', async () => {
    const t = await store()
    // 000540.SZ is suspended on the 16th and 17th and has its factor there; 600087.SH, delisted on the 10th, is
    // given a factor on the 17th too
    standIn.rewrite.set('adj_factor', (answer, call) => {
      if (call.params.trade_date !== '20240117' || !answer.data) return answer
      const gone = answer.data.fields.map(
        (f) => ({ ts_code: '600087.SH', trade_date: '20240117', adj_factor: '1' })[f] ?? null,
      )
      return { ...answer, data: { ...answer.data, items: [...answer.data.items, gone] } }
    })
    const whole = await sync(t, '2024-01-17', { from: '2024-01-08', to: '2024-01-17' }).finally(() =>
      standIn.rewrite.clear(),
    )
    expect(whole.incomplete).toEqual([])
    expect(standIn.calls.some((c) => c.api === 'adj_factor' && c.params.trade_date === '20240117')).toBe(true)
    const without = await store()
    standIn.fail.set('suspend_d', { code: 40203, msg: NO_PERMISSION_MSG })
    const skipped = await sync(without, '2024-01-17', { from: '2024-01-15', to: '2024-01-17' })
    expect(skipped.skipped[0]).toMatch(/^suspend_d: /)
    expect(skipped.incomplete).toEqual([])
    // daily_basic alone still says who traded
    standIn.late.set('daily', { day: '20240118', codes: ['600519.SH'] })
    const next = await sync(without, '2024-01-18', {})
    expect(next.incomplete).toEqual([{ day: '2024-01-18', missing: { daily: 1 } }])
  })
})
