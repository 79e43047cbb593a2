import { Type } from 'typebox'
import { ResponseDate } from './common.schema.js'
import { EXAMPLES } from './examples.js'

const pool = {
  pool_top: Type.Integer({ description: 'configured pool depth' }),
  pool_max: Type.Integer({ description: 'configured maximum pool depth' }),
}

/** `ok: true` always comes with a date; `ok: false` always with the reason. */
export const HealthSchema = Type.Union(
  [
    Type.Object(
      { ok: Type.Literal(true), latest_plan_date: ResponseDate('latest date of the tier score table'), ...pool },
      { additionalProperties: false, title: 'HealthOk' },
    ),
    Type.Object(
      {
        ok: Type.Literal(false),
        error: Type.String({
          description: 'why no plan date could be read: the store failure, or an empty tier table',
        }),
        ...pool,
      },
      { additionalProperties: false, title: 'HealthNoDate' },
    ),
  ],
  {
    $id: 'Health',
    description:
      '`ok` is true when the latest plan date could be read, and then `latest_plan_date` is present. With the ' +
      'store unreachable, or with an empty tier table (no plan date exists yet), `ok` is false with `error`.',
    examples: EXAMPLES.health,
  },
)
