import { type RawBuilder, type SqlBool, sql } from 'kysely'

/**
 * `code = any($1::text[])`: a code list as one array parameter. Kysely's `where('code', 'in', codes)` makes one
 * placeholder per code, and compiling 1000 of them and binding 1000 parameters blocks the event loop for
 * milliseconds per query; PostgreSQL plans both forms alike (an `in` list is an `= any` array to it).
 */
export function codeIn(codes: readonly string[]): RawBuilder<SqlBool> {
  return sql<SqlBool>`${sql.ref('code')} = any(${codes as string[]}::text[])`
}
