import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { asJsonb } from '../../src/storage/jsonb-shape.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'

/** Keys that jsonb orders differently from insertion: lengths, case, digits, multi-byte characters. */
const key = fc.oneof(
  fc.constantFrom('a', 'B', 'ab', 'Ab', 'z', 'zz', '10', '9', '_x', 'ä', 'é', '测', 'momentum', 'trend', 'heat'),
  fc.string({ minLength: 1, maxLength: 6 }).filter((s) => !s.includes('\u0000')),
)
const leaf = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.string().filter((s) => !s.includes('\u0000')),
)
const json = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 6 }),
  ),
})).value

describe('jsonb shape', () => {
  let t: TestDatabase
  beforeAll(async () => {
    t = await createTestDatabase()
  })
  afterAll(() => t.drop())

  it('is what PostgreSQL reads back from a jsonb written with JSON.stringify, keys in the order it gives them', async () => {
    await fc.assert(
      fc.asyncProperty(fc.dictionary(key, json, { maxKeys: 8 }), async (value) => {
        const { rows } = await t.pool.query('select $1::jsonb as doc', [JSON.stringify(value)])
        const stored = rows[0].doc
        const shaped = asJsonb(value)
        expect(shaped).toEqual(stored)
        expect(JSON.stringify(shaped)).toBe(JSON.stringify(stored))
      }),
      { numRuns: 300 },
    )
  })

  it('orders keys by byte length first, which insertion order and code-unit order both get wrong', () => {
    const shaped = asJsonb({ trend: 1, é: 2, z: 3, momentum: Number.NaN, ab: undefined })
    expect(Object.keys(shaped as object)).toEqual(['z', 'é', 'trend', 'momentum'])
    expect((shaped as Record<string, unknown>).momentum).toBeNull()
  })

  it('orders each object by its own keys when many share a key list in different insertion orders', () => {
    const rows = [
      { trend: 1, z: 2, momentum: 3 },
      { momentum: 4, trend: 5, z: 6 },
      { trend: 7, z: 8, momentum: 9 },
      { trend: 10, z: 11 },
      { trend: 12, z: 13, momentum: 14, ab: 15 },
    ]
    const shaped = rows.map((r) => asJsonb(r) as Record<string, number>)
    expect(shaped.map((s) => Object.keys(s))).toEqual([
      ['z', 'trend', 'momentum'],
      ['z', 'trend', 'momentum'],
      ['z', 'trend', 'momentum'],
      ['z', 'trend'],
      ['z', 'ab', 'trend', 'momentum'],
    ])
    expect(shaped.map((s) => s.momentum)).toEqual([3, 4, 9, undefined, 14])
    expect(shaped[1]).toEqual({ z: 6, trend: 5, momentum: 4 })
  })

  it('goes through toJSON where JSON.stringify would, and orders what it returns', () => {
    const shaped = asJsonb({ when: new Date(0), custom: { toJSON: () => ({ trend: 1, z: { bb: 1, a: 2 } }) } })
    expect(shaped).toEqual({ when: '1970-01-01T00:00:00.000Z', custom: { z: { a: 2, bb: 1 }, trend: 1 } })
    expect(JSON.stringify(shaped)).toBe('{"when":"1970-01-01T00:00:00.000Z","custom":{"z":{"a":2,"bb":1},"trend":1}}')
  })

  it('writes -0 as 0, drops undefined members and nulls undefined items, as JSON does', () => {
    const shaped = asJsonb({ x: -0, gone: undefined, list: [undefined, -0, Number.POSITIVE_INFINITY] }) as {
      x: number
      list: unknown[]
    }
    expect(Object.is(shaped.x, 0)).toBe(true)
    expect(Object.keys(shaped)).toEqual(['x', 'list'])
    expect(shaped.list).toEqual([null, 0, null])
    expect(Object.is(shaped.list[1], 0)).toBe(true)
  })
})
