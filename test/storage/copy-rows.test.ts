import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { insertColumns } from '../../src/storage/array-insert.js'
import { CopyValueError } from '../../src/storage/copy-binary.js'
import { copyRows, inTransaction } from '../../src/storage/copy-rows.js'
import type { NewStockDailyRow } from '../../src/storage/schema.js'
import { replaceStockDaily } from '../../src/storage/stock-daily.repository.js'
import { anyText } from '../support/any-text.js'
import { stockDailyRow } from '../support/stock-daily-rows.js'
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

  it('stores each value exactly as the unnest insert does, bit for bit (property)', async () => {
    const row = fc.record({
      label: fc.option(anyText().filter((s) => !s.includes('\u0000'))),
      day: fc.option(fc.date({ min: new Date('1990-01-01'), max: new Date('2099-12-31'), noInvalidDate: true })),
      x: fc.option(fc.double()),
      n: fc.option(fc.integer({ min: 0, max: 2147483647 })),
      ok: fc.option(fc.boolean()),
      // never null: the unnest insert writes a null json value as JSON's null, COPY as SQL's
      doc: fc.dictionary(fc.string(), fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.string())),
    })
    const asStored = `select label, day, float8send(x) as x, n, ok, doc::text as doc from copy_probe order by ordinality`
    await t.pool.query('alter table copy_probe add column if not exists ordinality int')
    await fc.assert(
      fc.asyncProperty(fc.array(row, { maxLength: 30 }), async (drawn) => {
        const rows = drawn.map((r, i) => ({ ...r, day: r.day?.toISOString().slice(0, 10) ?? null, ordinality: i }))
        const columns = [...COLUMNS, ['ordinality', 'int4']] as const
        await t.pool.query('truncate copy_probe')
        await inTransaction(t.pool, (client) => copyRows(client, 'copy_probe', columns, rows))
        const copied = (await t.pool.query(asStored)).rows
        await t.pool.query('truncate copy_probe')
        await insertColumns(t.db, 'copy_probe', columns, rows)
        expect(copied).toEqual((await t.pool.query(asStored)).rows)
      }),
      { numRuns: 40 },
    )
    await t.pool.query('alter table copy_probe drop column ordinality')
  })

  it('writes -0 as 0, infinities as themselves, and rows across many buffers', async () => {
    await t.pool.query('truncate copy_probe')
    const long = '长'.repeat(400_000) // 1.2 MB of UTF-8: more than one buffer on its own
    const rows = [
      { label: long, day: '2025-01-02', x: -0, n: 0, ok: true, doc: [long.slice(0, 10)] },
      { label: 'a', day: '2025-01-03', x: Number.POSITIVE_INFINITY, n: 1, ok: false, doc: {} },
      { label: 'b', day: '2025-01-06', x: Number.NEGATIVE_INFINITY, n: 2, ok: true, doc: [] },
      ...Array.from({ length: 30_000 }, (_, i) => ({
        label: `row ${i}`,
        day: '2025-01-07',
        x: i / 7,
        n: i + 3,
        ok: i % 2 === 0,
        doc: { i },
      })),
    ]
    const written = await inTransaction(t.pool, (client) => copyRows(client, 'copy_probe', COLUMNS, rows))
    expect(written).toBe(rows.length)
    const { rows: back } = await t.pool.query(
      'select length(label) as len, float8send(x)::text as bits, x::text as x from copy_probe where n < 3 order by n',
    )
    expect(back).toEqual([
      { len: 400_000, bits: '\\x0000000000000000', x: '0' },
      { len: 1, bits: '\\x7ff0000000000000', x: 'Infinity' },
      { len: 1, bits: '\\xfff0000000000000', x: '-Infinity' },
    ])
    const sums = await t.pool.query('select count(*)::int as n, sum(n)::float8 as total from copy_probe where n >= 3')
    expect(sums.rows[0]).toEqual({ n: 30_000, total: (30_000 * (3 + 30_002)) / 2 })
  })

  it('a value of the wrong type is refused by name before anything is written', async () => {
    await t.pool.query('truncate copy_probe')
    const good = { label: 'x', day: '2025-01-02', x: 1, n: 1, ok: true, doc: {} }
    for (const [bad, message] of [
      [{ n: 1.5 }, /column n: 1.5 is not an integer/],
      [{ x: '1.5' }, /column x: 1.5 is not a number/],
      [{ day: '2025-02-30' }, /column day: "2025-02-30" is not a date/],
      [{ day: '20250102' }, /column day: "20250102" is not a date/],
    ] as const) {
      await expect(
        inTransaction(t.pool, (client) => copyRows(client, 'copy_probe', COLUMNS, [good, { ...good, ...bad }])),
      ).rejects.toThrow(message)
    }
    await expect(
      inTransaction(t.pool, (client) => copyRows(client, 'copy_probe', COLUMNS, [{ ...good, n: 0.5 }])),
    ).rejects.toBeInstanceOf(CopyValueError)
    expect((await t.pool.query('select count(*)::int as n from copy_probe')).rows[0].n).toBe(0)
    expect((await t.pool.query('select 1 as one')).rows[0].one).toBe(1)
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
    const row = (code: string, state: string): NewStockDailyRow =>
      stockDailyRow({
        code,
        trade_date: '2025-03-03',
        plan_version: '3',
        logic_state: state as NewStockDailyRow['logic_state'],
        score: 50,
        score_pct: 50,
        pct_ema: 50,
      })
    await replaceStockDaily(t.pool, '2025-03-03', [row('600000.SH', 'forming'), row('600001.SH', 'forming')])
    await expect(
      replaceStockDaily(t.pool, '2025-03-03', [row('600000.SH', 'confirmed'), row('600001.SH', 'no such state')]),
    ).rejects.toThrow(/logic_state_check/)
    const { rows } = await t.pool.query("select code, logic_state from stock_daily where trade_date = '2025-03-03'")
    expect(rows.map((r) => r.logic_state).sort()).toEqual(['forming', 'forming'])
  })
})
