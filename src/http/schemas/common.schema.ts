import { type TSchema, Type } from 'typebox'

/** OpenAPI 3.1 / JSON Schema 2020-12 null: `anyOf: [schema, {type: 'null'}]`. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])

/** A reference to a named component schema (registered with `addSchema`, listed in `components.schemas`). */
export const Ref = (name: string) => Type.Ref(name)

export const ErrorSchema = Type.Object(
  {
    detail: Type.String({
      description: 'what went wrong, in words, and what to do next when there is something to do',
    }),
  },
  {
    $id: 'Error',
    description: 'Every error body',
    additionalProperties: false,
    examples: [{ detail: 'date must be a real calendar date, YYYY-MM-DD' }],
  },
)

/** A date the service writes: `YYYY-MM-DD`. */
export const ResponseDate = (description?: string) =>
  Type.String({ format: 'date', ...(description ? { description } : {}) })

/**
 * A real calendar date `YYYY-MM-DD` in a query (ajv-formats checks month lengths and leap years). Year 0000 is
 * refused: PostgreSQL has no year zero and would fail the query (a 5xx) instead of finding nothing.
 */
export const IsoDateSchema = Type.String({
  format: 'date',
  pattern: '^(?!0000)\\d{4}-\\d{2}-\\d{2}$',
  description: 'ISO date YYYY-MM-DD',
})

/** The request line and headers are limited to 16 KB (431 beyond): about 1,500 codes of the `600519.SH` form. */
const LINE_LIMIT = 'the whole request line is limited to 16 KB (431 beyond)'

export const CodesQuery = {
  codes: Type.Optional(
    Type.String({
      maxLength: 20_000,
      description: `comma-separated codes; takes precedence over code; ${LINE_LIMIT}`,
    }),
  ),
  code: Type.Optional(
    Type.String({ maxLength: 20_000, description: `one code (a comma list is accepted too); ${LINE_LIMIT}` }),
  ),
}

/** An unrecognised code form, inside a lookup's list. */
export const CodeErrorSchema = Type.Object(
  {
    input: Type.String({ description: 'the code exactly as sent' }),
    error: Type.String({ description: 'why the input is not a stock code' }),
  },
  {
    $id: 'CodeError',
    description: 'An unrecognised code form',
    additionalProperties: false,
    examples: [{ input: '60051', error: 'unrecognised code "60051": expected 6 digits' }],
  },
)

/** A JSON body at `status` (an error: `{detail}`). */
export const json = (schema: TSchema, description: string) => ({
  description,
  content: { 'application/json': { schema } },
})
export const errorResponse = (description: string) => json(Ref('Error'), description)

/** Fields of PLAN_VERSION 2 rows (plan rows and verdicts); absent from rows of older plans. */
export const ScoreDetailFields = {
  components: Type.Optional(
    Nullable(
      Type.Record(Type.String(), Type.Number(), {
        description:
          'points each signal contributed, adding up to the score (PLAN_VERSION 3: one key per signal the stock had that day, e.g. reversal_5d, value_ep; a signal without data has no key; older plans: momentum, trend, heat, upside, liquidity, quality); null for an absent code',
      }),
    ),
  ),
  flags: Type.Optional(
    Type.Array(
      Type.Union([
        Type.Literal('limit_up_close'),
        Type.Literal('one_word_board'),
        Type.Literal('st'),
        Type.Literal('new_listing'),
      ]),
      { description: 'why the row may not be tradable at the open' },
    ),
  ),
  score_pct: Type.Optional(Nullable(Type.Number({ description: "percentile 0..100 of the score in the day's table" }))),
  tier_rule: Type.Optional(Nullable(Type.String({ description: 'why the row has its tier, in words' }))),
  valuation_method: Type.Optional(Nullable(Type.String({ description: 'pe_band, pb_roe, or null' }))),
  invalidation: Type.Optional(Nullable(Type.String({ description: 'the hard invalidation that fired, in words' }))),
  logic_rule: Type.Optional(Nullable(Type.String({ description: 'the rule that set the logic state, in words' }))),
}
