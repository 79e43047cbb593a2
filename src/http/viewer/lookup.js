// The code lookup: one card per code with the day's verdict (GET /plan/verdict) and logic state, valuation and
// company review (GET /logic_state), inputs naming one code merged and a bad code said once.

import { $, DASH, el, getJson, isNum, num, pct, text } from '/dom.js'
import { codeErrorWords, isCodeError, logicRuleWords } from '/rules.js'
import { logicBadge, whyLines } from '/score-words.js'
import { listSep, state, term, tr } from '/state.js'
import { chartButton } from '/stock-panel.js'

/** The decision in one sentence that does not repeat the badge beside it. */
function verdictSentence(v, date) {
  const params = { card: v.card_rank, rank: v.rank, score: num(v.score), tier: term('tier', v.tier), date }
  if (v.decision === 'main' || v.decision === 'observe') return tr(`verdict.${v.decision}`, params)
  if (v.decision === 'absent') return tr('verdict.absent', params)
  return tr('verdict.reject', { ...params, why: term('reason', v.reason) })
}

const pctEmaText = (s) => `${num(s.score_pct, 0)} / ${num(s.pct_ema, 0)}`

function stateFacts(s) {
  const facts = [
    ['state.state', logicBadge(s.logic_state, null) ?? DASH],
    ['state.since', text(s.state_since)],
    ['state.days', text(s.days_in_state)],
    ['state.rule', text(logicRuleWords(tr, s.state_rule))],
    ['state.pct', pctEmaText(s), tr('state.pct.tip')],
    ['state.score_only', num(s.score)],
    ['state.source', term('source', s.source)],
  ]
  if (s.source === 'daily' && s.verdict)
    facts.push([
      'state.stored',
      `${term('decision', s.verdict)}${isNum(s.card_rank) ? ` #${s.card_rank}` : ''} · ${tr('fact.version')} ${text(s.plan_version)}`,
    ])
  return facts
}

/** A lookup part: the key is left out when its computation failed, and null when the code has no value. */
function optional(entry, key, what) {
  if (!(key in entry)) return tr(`lookup.${what}_failed`)
  if (entry[key] === null) return tr(`lookup.no_${what}`)
  const words = what === 'valuation' ? valuationWords(entry.valuation) : reviewWords(entry.company_review)
  return words ?? String(entry[key])
}

/** Metrics that are fractions (shown as %), by the company review's metric names. */
const FRACTION_METRICS = new Set(['roe', 'gross_margin', 'debt_to_assets', 'np_yoy', 'revenue_yoy'])
const metricValue = (metric, v) => (FRACTION_METRICS.has(metric) ? pct(v) : num(v, 2))

/** The valuation from its object: the table's upside and the margin of safety, each with its formula. */
function valuationWords(v) {
  const sc = v?.scenarios
  if (!sc || !isNum(sc.neutral?.value) || !isNum(v.price)) return undefined
  return tr('valuation.text', {
    neutral: num(sc.neutral.value, 2),
    close: num(v.price, 2),
    upside: pct(sc.neutral.value / v.price - 1),
    mos: pct(sc.neutral.mos),
    bear: num(sc.bear?.value, 2),
    bull: num(sc.bull?.value, 2),
    method: term('method', v.method),
  })
}

/** The company review from its object, thresholds in the unit of their metric. */
function reviewWords(r) {
  if (!r || typeof r.grade !== 'string' || !r.metrics) return undefined
  const m = r.metrics
  const sep = listSep()
  const triggered = (r.invalidation ?? []).filter((c) => c.triggered)
  const checks =
    triggered.length === 0
      ? tr('review.none_triggered')
      : tr('review.triggered', {
          list: triggered
            .map(
              (c) =>
                `${term('metric', c.metric)} ${metricValue(c.metric, c.current)} ${c.op} ${metricValue(c.metric, c.threshold)}`,
            )
            .join(sep),
        })
  return tr('review.text', {
    grade: r.grade,
    score: text(r.score),
    roe: pct(m.roe),
    gm: pct(m.gross_margin),
    ocf: num(m.ocf_to_np, 2),
    checks,
  })
}

function lookupCard({ key, also, verdict, st, codeError }, date) {
  const code = verdict?.code ?? st?.code
  const name = verdict?.name
  const head = el(
    'h3',
    null,
    el('span', { class: 'code' }, text(code ?? key)),
    name ? ` ${name}` : '',
    code && code !== key ? el('span', { class: 'muted' }, ` (${tr('lookup.input', { input: key })})`) : '',
    also.length > 0 ? el('span', { class: 'muted also' }, ` (${tr('lookup.also', { inputs: also.join(', ') })})`) : '',
    el('span', { class: 'muted as-of', 'data-date': date }, ` · ${tr('lookup.as_of', { date })}`),
    // a code the day did not score may have no bars at all: no chart to offer
    code && !codeError && verdict?.decision !== 'absent' ? ' ' : '',
    code && !codeError && verdict?.decision !== 'absent' ? chartButton(code) : '',
  )
  if (codeError)
    return el(
      'article',
      { class: 'lookup-card', 'data-input': key, 'data-date': date },
      head,
      el('p', { class: 'error code-error' }, tr('lookup.code_error', { error: codeErrorWords(tr, codeError) })),
    )
  const verdictPart = !verdict
    ? el('p', { class: 'empty-reason' }, tr('lookup.no_verdict'))
    : verdict.error
      ? el('p', { class: 'error verdict-error' }, tr('lookup.verdict_error', { error: verdict.error }))
      : el(
          'div',
          null,
          el(
            'p',
            { class: 'verdict-line' },
            el(
              'span',
              {
                class: `badge decision decision-${verdict.decision}`,
                'data-decision': verdict.decision,
                'data-reason': verdict.reason ?? null,
              },
              term('decision', verdict.decision),
              isNum(verdict.card_rank) ? ` #${verdict.card_rank}` : '',
            ),
            ' ',
            el('span', { class: 'verdict-text' }, verdictSentence(verdict, date)),
          ),
          ...(verdict.decision === 'absent' ? [] : whyLines(verdict)).map((line) =>
            el('p', { class: 'why small-text' }, line),
          ),
        )
  let statePart
  if (!st) statePart = el('p', { class: 'empty-reason' }, tr('lookup.no_state'))
  else if (st.error) statePart = el('p', { class: 'error state-error' }, tr('lookup.state_error', { error: st.error }))
  else if (!st.logic_state && verdict?.decision === 'absent')
    statePart = el('p', { class: 'empty-reason unscored' }, tr('lookup.unscored', { date }))
  else
    statePart = el(
      'div',
      { class: 'state' },
      el(
        'dl',
        { class: 'facts small' },
        ...stateFacts(st).map(([k, v, tip]) =>
          el('div', { 'data-fact': k, title: tip ?? null }, el('dt', null, tr(k)), el('dd', null, v)),
        ),
      ),
      el(
        'p',
        { class: 'valuation' },
        el('strong', null, `${tr('lookup.valuation')}: `),
        optional(st, 'valuation_text', 'valuation'),
      ),
      el(
        'p',
        { class: 'review' },
        el('strong', null, `${tr('lookup.review')}: `),
        optional(st, 'company_review_text', 'review'),
      ),
    )
  return el('article', { class: 'lookup-card', 'data-input': key, 'data-date': date }, head, verdictPart, statePart)
}

/** One card per code: inputs naming the same code are merged, and an input that is not a code is said once. */
function lookupEntries(verdictList, stateList) {
  const entries = []
  const byCode = new Map()
  const byInput = new Map()
  const entryFor = (input, code) => {
    if (code && byCode.has(code)) {
      const entry = byCode.get(code)
      if (entry.key !== input && !entry.also.includes(input)) entry.also.push(input)
      return entry
    }
    if (!code && byInput.has(input)) return byInput.get(input)
    const entry = { key: input, also: [], verdict: null, st: null, codeError: null }
    entries.push(entry)
    if (code) byCode.set(code, entry)
    else byInput.set(input, entry)
    return entry
  }
  for (const v of verdictList) {
    const entry = entryFor(v.input, v.error && isCodeError(v.error) ? null : v.code)
    if (v.error && isCodeError(v.error)) entry.codeError = v.error
    else if (!entry.verdict) entry.verdict = v
  }
  for (const s of stateList) {
    const entry = entryFor(s.input, s.error && isCodeError(s.error) ? null : s.code)
    if (s.error && isCodeError(s.error)) entry.codeError = s.error
    else if (!entry.st) entry.st = s
  }
  return entries
}

export function renderLookup() {
  const box = $('lookup-results')
  const { result, date, codes } = state.lookup
  if (!result) return
  if (result.busy) {
    box.replaceChildren(el('p', { class: 'muted' }, tr('lookup.busy', { date })))
    return
  }
  if (codes.length === 0) {
    box.replaceChildren(el('p', { class: 'error' }, tr('lookup.empty')))
    return
  }
  const out = []
  const { verdicts, states } = result
  // the same failure of both lookups (the store is down) is said once
  if (verdicts.error && states.error && verdicts.error === states.error)
    out.push(el('p', { class: 'error lookup-error' }, tr('lookup.failed', { error: verdicts.error })))
  else {
    if (verdicts.error)
      out.push(el('p', { class: 'error lookup-error' }, tr('lookup.verdict_failed', { error: verdicts.error })))
    if (states.error)
      out.push(el('p', { class: 'error lookup-error' }, tr('lookup.state_failed', { error: states.error })))
  }
  for (const entry of lookupEntries(verdicts.value?.verdicts ?? [], states.value?.states ?? []))
    out.push(lookupCard(entry, date))
  box.replaceChildren(...out)
}

let lookupRequest = 0

export async function lookup(raw, date = $('date-picker').value) {
  const request = ++lookupRequest
  const codes = raw
    .split(/[\s,，;；]+/)
    .map((c) => c.trim())
    .filter((c) => c !== '')
  state.lookup = { codes, date, result: codes.length === 0 ? { empty: true } : { busy: true } }
  renderLookup()
  if (codes.length === 0) return
  const query = `codes=${encodeURIComponent(codes.join(','))}${date ? `&date=${encodeURIComponent(date)}` : ''}`
  const [verdicts, states] = await Promise.allSettled([
    getJson(`/plan/verdict?${query}`),
    getJson(`/logic_state?${query}`),
  ])
  if (request !== lookupRequest) return // a newer lookup (or a date switch) started meanwhile
  const settle = (r) => (r.status === 'fulfilled' ? { value: r.value } : { error: r.reason.message })
  state.lookup = { codes, date, result: { verdicts: settle(verdicts), states: settle(states) } }
  renderLookup()
}

/** Codes of the day's lists to try, one click each. */
export function renderExamples(plan) {
  const codes = [plan.main?.[0]?.code, plan.observe?.[0]?.code, plan.watch?.[0]?.code].filter(Boolean)
  const box = $('lookup-examples')
  $('lookup-codes').setAttribute('placeholder', codes.length > 0 ? codes.join(', ') : '600519.SH')
  if (codes.length === 0) {
    box.replaceChildren()
    return
  }
  box.replaceChildren(
    tr('lookup.examples'),
    ' ',
    ...codes.map((code) => {
      const button = el('button', { type: 'button', class: 'example', 'data-code': code }, code)
      button.addEventListener('click', () => {
        $('lookup-codes').value = code
        lookup(code)
      })
      return button
    }),
  )
}
