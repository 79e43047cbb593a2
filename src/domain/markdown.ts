import { TIER_RULES } from './build-rules.js'
import type { PlanBody, PlanRow } from './plan-types.js'
import type { Market, Regime } from './regime.js'
import { englishTerm } from './vocabulary.js'

/** Data text made safe for a Markdown table cell: no HTML, no pipes, no links or images, no line breaks. */
export function escapeMarkdown(text: string): string {
  return text
    .replaceAll('\\', '\\\\')
    .replaceAll('[', '\\[')
    .replaceAll(']', '\\]')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('|', '\\|')
    .replace(/[\r\n]+/g, ' ')
}

const cell = (value: string | number | null | undefined): string =>
  value === null || value === undefined || value === '' ? '—' : escapeMarkdown(String(value))
const pct = (value: number | null): string => (value === null ? '—' : `${(value * 100).toFixed(1)}%`)

function table(rows: readonly PlanRow[]): string[] {
  if (rows.length === 0) return ['_none_']
  return [
    '| # | code | name | theme | score | upside | reason |',
    '|---:|---|---|---|---:|---:|---|',
    ...rows.map(
      (r) =>
        `| ${r.card_rank} | ${cell(r.code)} | ${cell(r.name)} | ${cell(r.theme)} | ${r.score.toFixed(1)} | ${pct(r.upside)} | ${cell(r.verdict_text)} |`,
    ),
  ]
}

function marketLines(market: Market | Record<string, never>): string[] {
  if (!('breadth' in market)) return []
  const { breadth, limits, turnover, trend } = market
  return [
    `- breadth: ${englishTerm('signal', breadth.signal)} (up ${breadth.up ?? '—'}, down ${breadth.down ?? '—'}, up ratio ${pct(breadth.up_ratio)})`,
    `- limits: ${englishTerm('signal', limits.signal)} (limit-up ${limits.limit_up ?? '—'}, limit-down ${limits.limit_down ?? '—'})`,
    `- turnover: ${englishTerm('signal', turnover.signal)} (ratio to MA20 ${turnover.ratio ?? '—'})`,
    `- trend: ${englishTerm('signal', trend.signal)} (${cell(trend.index)} close ${trend.close ?? '—'} vs MA20 ${trend.ma20 ?? '—'}, ${pct(trend.pct_above_ma20)} of stocks above MA20)`,
  ]
}

/** The weak-regime shrink rule, when it moved main-tier candidates to observe that day. */
function shrinkLines(plan: PlanBody): string[] {
  const demoted = plan.card_counts.weak_regime_demoted ?? 0
  if (demoted <= 0) return []
  return [
    `_Weak regime: no new entries today (main keeps its holdings, at most ${TIER_RULES.mainSlots}); ${demoted} would-be entrant${demoted === 1 ? '' : 's'} moved to observe._`,
    '',
  ]
}

/** The plan as Markdown: the plan file and `GET /plan?format=md` both come from here. */
export function renderPlanMarkdown(plan: PlanBody, regime: Regime, market: Market | Record<string, never>): string {
  const lines = [
    `# Stock plan for data date ${plan.date}`,
    '',
    `Plan version ${cell(plan.plan_version)} · generated ${cell(plan.generated_at)}`,
    '',
    `**Regime:** ${cell(englishTerm('regime', regime.status))}${regime.weak_day ? ' (weak day)' : ''} — ${cell(regime.source)}`,
    ...marketLines(market),
    '',
    `## Main (${plan.main.length})`,
    '',
    ...shrinkLines(plan),
    ...(plan.main_empty ? [`_Main is empty today: ${plan.main_empty}._`, ''] : []),
    ...table(plan.main),
    '',
    `## Observe (${plan.observe.length})`,
    '',
    ...table(plan.observe),
    '',
    '## Segments pointed',
    '',
    ...(plan.segments_pointed.length === 0
      ? ['_none_']
      : plan.segments_pointed.map(
          (s) =>
            `- ${cell(s.theme)} / ${cell(s.segment)}: ${s.count} (${s.codes.map(cell).join(', ')}), heat ${s.heat ?? '—'}`,
        )),
    '',
    '## Watch',
    '',
    ...(plan.watch.length === 0
      ? ['_none_']
      : plan.watch.map((w) => `- ${cell(w.code)} ${cell(w.name)}: ${cell(w.text)}`)),
    '',
  ]
  return lines.join('\n')
}
