import { Type } from 'typebox'

export const ErrorSchema = Type.Object({ detail: Type.String() }, { $id: 'Error', description: 'Every error body' })

/**
 * A real calendar date `YYYY-MM-DD` (ajv-formats checks month lengths and leap years). Year 0000 is refused:
 * PostgreSQL has no year zero and would fail the query (a 5xx) instead of finding nothing.
 */
export const IsoDateSchema = Type.String({
  format: 'date',
  pattern: '^(?!0000)\\d{4}-\\d{2}-\\d{2}$',
  description: 'ISO date YYYY-MM-DD',
})

export const CodesQuery = {
  codes: Type.Optional(
    Type.String({ maxLength: 20_000, description: 'comma-separated codes; takes precedence over code' }),
  ),
  code: Type.Optional(Type.String({ maxLength: 20_000, description: 'one code (a comma list is accepted too)' })),
}
