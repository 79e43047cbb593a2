import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'

describe('pg type parsing', () => {
  let t: TestDatabase
  beforeAll(async () => {
    t = await createTestDatabase()
  })
  afterAll(async () => t.drop())

  const QUERY = "select date '2026-11-20' as d, 9007199254740991::int8 as big, 12.5::numeric as n"

  it('our pools read DATE as an ISO string and int8/numeric as numbers', async () => {
    const { rows } = await t.pool.query(QUERY)
    expect(rows[0]).toEqual({ d: '2026-11-20', big: 9007199254740991, n: 12.5 })
  })

  it("importing storage/db.ts leaves pg's own defaults alone for every other client", async () => {
    const client = new pg.Client({ connectionString: t.url })
    await client.connect()
    try {
      const { rows } = await client.query(QUERY)
      expect(rows[0].d).toBeInstanceOf(Date)
      expect(rows[0].big).toBe('9007199254740991')
      expect(rows[0].n).toBe('12.5')
    } finally {
      await client.end()
    }
  })
})
