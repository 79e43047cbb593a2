import { Type } from 'typebox'
import { Compile } from 'typebox/compile'

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()])
const Count = Type.Integer({ minimum: 0 })
const IsoDate = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' })

const EvidenceEdge = Type.Object({
  theme: Type.String(),
  segment: Type.String(),
  weight: Type.Number(),
  evidence: Type.String(),
  track: Type.String(),
})

/** A `_full` row: what cutting a plan and deciding a verdict read. Extra fields are allowed (newer writers). */
const FullRow = Type.Object({
  code: Type.String({ minLength: 1 }),
  name: Type.String(),
  rank: Type.Integer({ minimum: 1 }),
  score: Type.Number(),
  tier: Type.Union([Type.Literal('main'), Type.Literal('observe'), Type.Literal('reject')]),
  theme: Nullable(Type.String()),
  segment: Nullable(Type.String()),
  track: Nullable(Type.String()),
  upside: Nullable(Type.Number()),
  heat: Nullable(Type.Number()),
  transmission: Nullable(Type.Number()),
  graph_evidence: Type.Array(EvidenceEdge),
  logic_state: Nullable(Type.String()),
  logic_days: Nullable(Type.Integer()),
})

const FullPlan = Type.Object({
  date: IsoDate,
  plan_version: Type.String(),
  generated_at: Type.String(),
  rows: Type.Array(FullRow),
  tier_counts: Type.Record(Type.String(), Count),
  screen_counts: Type.Record(Type.String(), Count),
  screened_reject: Count,
  prev_date: Nullable(IsoDate),
  prev_main: Type.Array(Type.String()),
  prev_reasons: Type.Record(Type.String(), Type.String()),
  names: Type.Record(Type.String(), Type.String()),
})

const Snapshot = Type.Object({ date: IsoDate, _full: FullPlan })

const validator = Compile(Snapshot)

/** The first schema violation of a parsed snapshot, as `path: message`, or undefined when it is usable. */
export function snapshotViolation(value: unknown): string | undefined {
  if (validator.Check(value)) return undefined
  const first = validator.Errors(value)[0]
  if (!first) return 'does not match the snapshot schema'
  return `${first.instancePath || '/'}: ${first.message}`
}
