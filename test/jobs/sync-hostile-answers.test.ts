/**
 * The sync against a hostile tushare (issue 49), served by the stand-in on port 0: answers whose header is written
 * otherwise than asked and that carry rows nobody asked for. Each must fail the sync and leave what is stored as
 * it was.
 */
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runSync, type SyncArgs } from '../../src/jobs/sync.job.js'
import { captureLog } from '../support/log-capture.js'
import { rows } from '../support/queries.js'
import { standInClient, syncDeps } from '../support/sync-store.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'
import { type AnswerBody, startTushareStandIn, type TushareStandIn } from '../support/tushare-stand-in.js'

const GOLDEN = fileURLToPath(new URL('../data/tushare/bundle/', import.meta.url))

describe('a hostile tushare answer', () => {
  let standIn: TushareStandIn
  let t: TestDatabase
  const captured = captureLog('warn')
  const sync = (args: SyncArgs) => {
    const client = standInClient(standIn.url, 'tok-hostile-answers', captured.log)
    return runSync(syncDeps(t, client, captured.log, '2024-01-08'), args, new AbortController().signal)
  }
  const bar = `select open, high, low, close from daily_bars where code = '600519.SH' and trade_date = '2024-01-02'`

  beforeAll(async () => {
    standIn = await startTushareStandIn(GOLDEN)
    t = await createTestDatabase()
    await sync({ from: '2024-01-02', to: '2024-01-05' })
  })
  afterAll(async () => {
    await standIn.close()
    await t.drop()
  })

  it('does not rewrite a synced bar: daily of the 8th with TRADE_DATE and a row of the 2nd fails the sync', async () => {
    const stored = await rows(t, bar)
    expect(stored).toEqual([{ open: 1678.98, high: 1696.88, low: 1673.77, close: 1685.8 }])
    // daily and adj_factor both carry 600519.SH's 2nd, priced at 1.01 with its factor, under TRADE_DATE
    const stray = (values: Record<string, string>) => (answer: AnswerBody) => {
      const data = answer.data!
      const row = [...data.items[0]!]
      for (const [column, value] of Object.entries(values)) row[data.fields.indexOf(column)] = value
      const fields = data.fields.map((f) => (f === 'trade_date' ? 'TRADE_DATE' : f))
      return { ...answer, data: { ...data, fields, items: [...data.items, row] } }
    }
    const day = { ts_code: '600519.SH', trade_date: '20240102' }
    standIn.rewrite.set('daily', stray({ ...day, open: '1.01', high: '1.01', low: '1.01', close: '1.01' }))
    standIn.rewrite.set('adj_factor', stray({ ...day, adj_factor: '1' }))
    try {
      await expect(sync({ from: '2024-01-08', to: '2024-01-08' })).rejects.toThrow(
        'tushare daily: a row has trade_date 20240102, not the 20240108 asked for',
      )
    } finally {
      standIn.rewrite.clear()
    }
    expect(await rows(t, bar)).toEqual(stored)
    expect(await rows(t, `select count(*)::int as n from daily_bars where trade_date = '2024-01-08'`)).toEqual([
      { n: 0 },
    ])
  })

  it('adds no index nobody asked for: index_daily with TS_Code and a row of 000905.SH fails the sync', async () => {
    standIn.rewrite.set('index_daily', (answer: AnswerBody) => {
      const data = answer.data!
      const other = [...data.items[0]!]
      other[data.fields.indexOf('ts_code')] = '000905.SH'
      const fields = data.fields.map((f) => (f === 'ts_code' ? 'TS_Code' : f))
      return { ...answer, data: { ...data, fields, items: [...data.items, other] } }
    })
    try {
      await expect(sync({ from: '2024-01-08', to: '2024-01-08' })).rejects.toThrow(
        'tushare index_daily: a row is of 000905.SH, a code not asked for',
      )
    } finally {
      standIn.rewrite.delete('index_daily')
    }
    expect(await rows(t, `select distinct code from index_bars`)).toEqual([{ code: '000300.SH' }])
    expect(await rows(t, `select count(*)::int as n from daily_bars where trade_date = '2024-01-08'`)).toEqual([
      { n: 0 },
    ])
  })

  it("logs tushare's msg bounded and escaped: no terminal sequence or forged line reaches the log", async () => {
    const forged = `\u001b[2K\r{"level":30,"msg":"sync finished"}\n`
    standIn.fail.set('ths_daily', { code: 40203, msg: `抱歉，您没有接口访问权限${forged}${'权限'.repeat(20_000)}` })
    const lines = captured.lines.length
    try {
      await sync({ from: '2024-01-08', to: '2024-01-08' })
    } finally {
      standIn.fail.delete('ths_daily')
    }
    const warning = captured.lines.slice(lines).find((l) => String(l.msg).startsWith('tushare ths_daily'))!
    const text = String(warning.msg)
    expect(text).toContain('\\u{1b}[2K\\u{d}{"level":30')
    expect(/[\p{Cc}\p{Cf}]/u.test(text)).toBe(false)
    expect(text.length).toBeLessThan(600)
  })

  it('fails cleanly on pages of more rows than their limit with has_more for ever, storing nothing of the day', async () => {
    // namechange pages by 5,000 rows: every page answers 20,000 and says there are more
    standIn.rewrite.set('namechange', (answer) => {
      const data = answer.data!
      const row = data.fields.map(
        (f) => ({ ts_code: '600519.SH', name: '贵州茅台', start_date: '20010827' })[f] ?? null,
      )
      return { ...answer, data: { ...data, items: Array.from({ length: 20_000 }, () => row), has_more: true } }
    })
    const calls = standIn.calls.length
    try {
      await expect(sync({ from: '2024-01-09', to: '2024-01-09' })).rejects.toThrow(
        'tushare namechange: the answer holds more than 5000 rows of 6 values, the most one call was asked for: refused as it arrived',
      )
    } finally {
      standIn.rewrite.delete('namechange')
    }
    expect(standIn.calls.slice(calls).filter((c) => c.api === 'namechange')).toHaveLength(1)
    expect(await rows(t, `select count(*)::int as n from daily_bars where trade_date = '2024-01-09'`)).toEqual([
      { n: 0 },
    ])
  })

  it('bounds what a sync keeps across boards: members past the budget of all boards together fail it, storing nothing', async () => {
    const client = standInClient(standIn.url, 'tok-hostile-answers', captured.log)
    const members = await rows(t, `select count(*)::int as n from theme_edges`)
    // the golden bundle's boards have 5 memberships; a budget of 3 stands for the 500,000 a real sync keeps at most
    const deps = {
      ...syncDeps(t, client, captured.log, '2024-01-08'),
      keptRows: { conceptMembers: 3, reportsOfADay: 200_000 },
    }
    await expect(runSync(deps, { from: '2024-01-09', to: '2024-01-09' }, new AbortController().signal)).rejects.toThrow(
      "tushare ths_member: the concept boards' members passed 3 rows together, far more than a real market's: refused, nothing written",
    )
    expect(await rows(t, `select count(*)::int as n from theme_edges`)).toEqual(members)
    expect(await rows(t, `select count(*)::int as n from daily_bars where trade_date = '2024-01-09'`)).toEqual([
      { n: 0 },
    ])
  })

  it('takes the same answers whole when their headers are only written otherwise', async () => {
    const upper = (answer: AnswerBody) =>
      answer.data
        ? { ...answer, data: { ...answer.data, fields: answer.data.fields.map((f) => f.toUpperCase()) } }
        : answer
    standIn.rewrite.set('daily', upper)
    standIn.rewrite.set('index_daily', upper)
    try {
      const result = await sync({ from: '2024-01-08', to: '2024-01-08' })
      expect(result.days).toEqual(['2024-01-08'])
    } finally {
      standIn.rewrite.clear()
    }
    expect(
      await rows(t, `select close from daily_bars where code = '600519.SH' and trade_date = '2024-01-08'`),
    ).toEqual([{ close: 1716.68 }])
    expect(await rows(t, `select count(*)::int as n from index_bars where trade_date = '2024-01-08'`)).toEqual([
      { n: 1 },
    ])
  })
})
