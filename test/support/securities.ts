import type { Db } from '../../src/storage/db.js'

/** Listed securities named after their codes (exchange from the suffix, main board), listed since `listDate`. */
export async function insertSecurities(
  db: Db,
  codes: readonly string[],
  options: { listDate?: string; board?: (code: string) => string } = {},
): Promise<void> {
  await db
    .insertInto('securities')
    .values(
      codes.map((code) => ({
        code,
        name: code,
        exchange: code.slice(-2),
        board: options.board?.(code) ?? 'main',
        industry: null,
        list_date: options.listDate ?? '2020-01-02',
        delist_date: null,
      })),
    )
    .execute()
}
