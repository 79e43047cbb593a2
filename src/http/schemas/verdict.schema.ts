import { Type } from 'typebox'
import { Nullable, Ref, ResponseDate, ScoreDetailFields } from './common.schema.js'
import { EXAMPLES } from './examples.js'

/** A verdict; new per-code fields (score components, flags) are one more property here. */
export const VerdictEntrySchema = Type.Object(
  {
    input: Type.String({ description: 'the code exactly as sent' }),
    code: Type.String({ description: 'normalised code, e.g. 600519.SH' }),
    name: Nullable(Type.String()),
    decision: Type.Union([
      Type.Literal('main'),
      Type.Literal('observe'),
      Type.Literal('reject'),
      Type.Literal('absent'),
    ]),
    reason: Nullable(
      Type.String({
        description:
          'why not selected: held, b_share, suspended, st, new_listing, illiquid, theme_cap, beyond_top, beyond_obs_top, tier_reject, not_in_tier_table',
      }),
    ),
    verdict_text: Type.String({ description: 'one line; `stockplan reconcile` prints the same' }),
    score: Nullable(Type.Number()),
    rank: Nullable(Type.Integer()),
    tier: Nullable(Type.Union([Type.Literal('main'), Type.Literal('observe'), Type.Literal('reject')])),
    upside: Nullable(Type.Number()),
    heat: Nullable(Type.Number()),
    transmission: Nullable(Type.Number()),
    track: Nullable(Type.String()),
    graph_evidence: Nullable(Type.Array(Ref('EvidenceEdge'))),
    card_rank: Nullable(Type.Integer()),
    ...ScoreDetailFields,
  },
  {
    $id: 'VerdictEntry',
    description: 'A verdict; detail fields are null for an absent code',
    examples: EXAMPLES.verdictList.verdicts.slice(0, 2),
  },
)

export const VerdictErrorSchema = Type.Object(
  {
    input: Type.String({ description: 'the code exactly as sent' }),
    code: Type.String({ description: 'normalised code' }),
    error: Type.String({ description: '<ExceptionType>: <message>' }),
  },
  {
    $id: 'VerdictError',
    description: 'A per-stock data failure',
    additionalProperties: false,
    examples: [{ input: '600519', code: '600519.SH', error: 'TypeError: price is not a number' }],
  },
)

export const VerdictListSchema = Type.Object(
  {
    date: ResponseDate('tier date used'),
    stale: Type.String({ description: "the date's build note on incomplete inputs; empty when none" }),
    count: Type.Integer({ description: 'number of entries in `verdicts`' }),
    verdicts: Type.Array(Type.Union([Ref('VerdictEntry'), Ref('VerdictError'), Ref('CodeError')]), {
      description: 'one entry per input, in the order sent, duplicates kept',
    }),
  },
  { $id: 'VerdictList', description: 'Verdicts for the codes sent', examples: [EXAMPLES.verdictList] },
)
