import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { copyRows, inTransaction } from '../../src/storage/copy-rows.js'
import type { NewStockDailyRow } from '../../src/storage/schema.js'
import { replaceStockDaily } from '../../src/storage/stock-daily.repository.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'

const COLUMNS = [
  ['label', 'text'],
  ['day', 'date'],
  ['x', 'float8'],
  ['n', 'int4'],
  ['ok', 'bool'],
  ['doc', 'jsonb'],
] as const

describe('COPY writer', () => {
  let t: TestDatabase
  beforeAll(async () => {
    t = await createTestDatabase()
    await t.pool.query(
      'create table copy_probe (label text, day date, x float8, n int4 check (n >= 0), ok bool, doc jsonb)',
    )
  })
  afterAll(() => t.drop())

  it('writes every value back as it was: escapes, nulls, extreme floats and json', async () => {
    const rows = [
      {
        label: 'tab\there, new\nline, back\\slash, cr\r',
        day: '2025-01-02',
        x: 0.1 + 0.2,
        n: 7,
        ok: true,
        doc: { a: 'q"\\\t' },
      },
      { label: null, day: null, x: Number.MIN_VALUE, n: null, ok: false, doc: null },
      { label: '\\N', day: '2025-12-31', x: -1.7976931348623157e308, n: 0, ok: null, doc: '[1, "x"]' },
      { label: 'ST*测试', day: '2024-02-29', x: Number.NaN, n: 2147483647, ok: true, doc: { nested: [null, 1.5] } },
    ]
    const written = await inTransaction(t.pool, (client) => copyRows(client, 'copy_probe', COLUMNS, rows))
    expect(written).toBe(rows.length)
    const { rows: back } = await t.pool.query(
      "select label, to_char(day, 'YYYY-MM-DD') as day, x, n, ok, doc from copy_probe order by n nulls first",
    )
    const expected = [rows[1], rows[2], rows[0], rows[3]].map((r) => ({
      ...r,
      doc: typeof r!.doc === 'string' ? JSON.parse(r!.doc) : r!.doc,
    }))
    expect(back).toEqual(expected)
  })

  it('a row the table refuses rolls the whole write back, the rows before it included', async () => {
    await t.pool.query('truncate copy_probe')
    const good = { label: 'kept?', day: '2025-01-02', x: 1, n: 1, ok: true, doc: {} }
    await expect(
      inTransaction(t.pool, async (client) => {
        await client.query("insert into copy_probe (label) values ('before the copy')")
        return copyRows(client, 'copy_probe', COLUMNS, [good, { ...good, n: -1 }])
      }),
    ).rejects.toThrow(/copy_probe_n_check/)
    expect((await t.pool.query('select count(*)::int as n from copy_probe')).rows[0].n).toBe(0)
    // the pool's client came back usable
    expect((await t.pool.query('select 1 as one')).rows[0].one).toBe(1)
  })

  it('replacing a day of daily rows that fails half-way leaves the old day as it was', async () => {
    const row = (code: string, state: string): NewStockDailyRow => ({
      code,
      trade_date: '2025-03-03',
      verdict: 'observe' as const,
      card_rank: null,
      plan_version: '3',
      logic_state: state as NewStockDailyRow['logic_state'],
      score: 50,
      score_ema: 50,
      score_pct: 50,
      pct_ema: 50,
      state_since: '2025-03-03',
      state_rule: 'r',
      days_in_state: 1,
      above_days: 0,
      absent_days: 0,
      code_version: 'test',
    })
    await replaceStockDaily(t.pool, '2025-03-03', [row('600000.SH', 'forming'), row('600001.SH', 'forming')])
    await expect(
      replaceStockDaily(t.pool, '2025-03-03', [row('600000.SH', 'confirmed'), row('600001.SH', 'no such state')]),
    ).rejects.toThrow(/logic_state_check/)
    const { rows } = await t.pool.query("select code, logic_state from stock_daily where trade_date = '2025-03-03'")
    expect(rows.map((r) => r.logic_state).sort()).toEqual(['forming', 'forming'])
  })
})
