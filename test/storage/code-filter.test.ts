import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { codeIn } from '../../src/storage/code-filter.js'
import { insertSecurities } from '../support/securities.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'

describe('codeIn: a code list as one array parameter', () => {
  let t: TestDatabase
  beforeAll(async () => {
    t = await createTestDatabase()
    await insertSecurities(t.db, ['600000.SH', '000001.SZ', '300750.SZ'])
  })
  afterAll(async () => t.drop())

  const codesOf = (codes: readonly string[]) =>
    t.db.selectFrom('securities').select('code').where(codeIn(codes)).orderBy('code').execute()

  it('binds a thousand codes as one parameter, not one placeholder per code', () => {
    const codes = Array.from({ length: 1000 }, (_, i) => `${String(i).padStart(6, '0')}.SZ`)
    const compiled = t.db.selectFrom('securities').select('code').where(codeIn(codes)).compile()
    expect(compiled.parameters).toEqual([codes])
    expect(compiled.sql).toContain('"code" = any($1::text[])')
  })

  it('matches the listed codes only; unknown codes match nothing, an empty list no row', async () => {
    expect((await codesOf(['600000.SH', '300750.SZ', '999999.SH'])).map((r) => r.code)).toEqual([
      '300750.SZ',
      '600000.SH',
    ])
    expect(await codesOf([])).toEqual([])
  })
})
