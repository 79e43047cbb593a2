// The plan of a date read together with what its panels need beside it: its rows' facts (fundamentals,
// yesterday's rank, GET /stocks) and the previous plan date's plan (for what changed).
import { getJson } from '/dom.js'

/**
 * `{ plan, previous: { value } | { error }, facts }` for `date`; `previousDate` is the plan date before it (none on
 * the earliest). The plan stands without its facts (their cells show dashes) or without the previous plan.
 */
export async function readPlan(date, previousDate) {
  const [plan, previous] = await Promise.all([
    getJson(`/plan?date=${encodeURIComponent(date)}`),
    previousDate
      ? getJson(`/plan?date=${encodeURIComponent(previousDate)}`).then(
          (value) => ({ value }),
          (err) => ({ error: err.message }),
        )
      : Promise.resolve({ value: null }),
  ])
  const codes = [...new Set([...(plan.main ?? []), ...(plan.observe ?? [])].map((r) => r.code))]
  let facts = new Map()
  if (codes.length > 0) {
    try {
      const body = await getJson(
        `/stocks?date=${encodeURIComponent(plan.date)}&codes=${encodeURIComponent(codes.join(','))}`,
      )
      facts = new Map((body.stocks ?? []).filter((s) => s.code).map((s) => [s.code, s]))
    } catch {
      // the plan stands without its fundamentals: their cells show dashes
    }
  }
  return { plan, previous, facts }
}
