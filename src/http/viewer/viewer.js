// The plan viewer: reads the JSON endpoints and builds the page with textContent only (never innerHTML).

const $ = (id) => document.getElementById(id)

/** An element with attributes and children; strings become text nodes, null/undefined children are skipped. */
function el(tag, attrs, ...children) {
  const node = document.createElement(tag)
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === null || value === undefined || value === false) continue
    if (key === 'class') node.className = value
    else node.setAttribute(key, value === true ? '' : String(value))
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue
    node.append(typeof child === 'string' || typeof child === 'number' ? String(child) : child)
  }
  return node
}

const DASH = '–'
const isNum = (v) => typeof v === 'number' && Number.isFinite(v)
const text = (v) => (v === null || v === undefined || v === '' ? DASH : String(v))
const num = (v, digits = 1) => (isNum(v) ? v.toFixed(digits) : DASH)
const pct = (v, digits = 1) => (isNum(v) ? `${(v * 100).toFixed(digits)}%` : DASH)
/** Large amounts in yuan as 1.12T / 3.4B / 56.0M. */
function amount(v) {
  if (!isNum(v)) return DASH
  const units = [
    [1e12, 'T'],
    [1e9, 'B'],
    [1e6, 'M'],
  ]
  for (const [size, unit] of units) if (Math.abs(v) >= size) return `${(v / size).toFixed(2)}${unit}`
  return v.toLocaleString('en-US')
}

async function getJson(url) {
  const res = await fetch(url, { headers: { accept: 'application/json' } })
  let body = null
  try {
    body = await res.json()
  } catch {
    body = null
  }
  if (!res.ok) {
    const detail = body && typeof body.detail === 'string' ? body.detail : res.statusText
    throw new Error(`${res.status}: ${detail}`)
  }
  return body
}

function showError(message) {
  const box = $('error')
  box.textContent = message ?? ''
  box.hidden = !message
}

// ---- regime and market --------------------------------------------------------------------------------

const MARKET_ITEMS = {
  breadth: (m) => [
    ['up / down / flat', `${text(m.up)} / ${text(m.down)} / ${text(m.flat)}`],
    ['up ratio', pct(m.up_ratio)],
  ],
  limits: (m) => [
    ['limit up', text(m.limit_up)],
    ['limit down', text(m.limit_down)],
  ],
  turnover: (m) => [
    ['amount', amount(m.amount)],
    ['ma20', amount(m.ma20)],
    ['ratio', num(m.ratio, 2)],
  ],
  trend: (m) => [
    ['index', text(m.index)],
    ['close / ma20', `${num(m.close)} / ${num(m.ma20)}`],
    ['above ma20', pct(m.pct_above_ma20)],
  ],
}

function renderMarket(market) {
  const box = $('market')
  const names = Object.keys(market ?? {})
  if (names.length === 0) {
    box.replaceChildren(el('p', { class: 'muted' }, 'No market section: the day has no snapshot.'))
    return
  }
  box.replaceChildren(
    ...names.map((name) => {
      const item = market[name] ?? {}
      const lines = MARKET_ITEMS[name]
        ? MARKET_ITEMS[name](item)
        : Object.entries(item)
            .filter(([k]) => k !== 'signal')
            .map(([k, v]) => [k, typeof v === 'object' ? JSON.stringify(v) : text(v)])
      return el(
        'div',
        { class: 'market-item', 'data-item': name },
        el('h3', null, name, ' ', el('span', { class: `badge signal-${text(item.signal)}` }, text(item.signal))),
        el('dl', null, ...lines.map(([k, v]) => el('div', null, el('dt', null, k), el('dd', null, v)))),
      )
    }),
  )
}

function renderRegime(regime) {
  const status = $('regime-status')
  status.textContent = text(regime?.status)
  status.className = `badge regime-${text(regime?.status)}`
  $('regime-weak').textContent =
    regime?.weak_day === null || regime?.weak_day === undefined ? 'n/a' : regime.weak_day ? 'yes' : 'no'
  $('regime-source').textContent = text(regime?.source)
}

// ---- plan tables ----------------------------------------------------------------------------------------

const PLAN_COLUMNS = ['', 'Rank', 'Code', 'Name', 'Theme', 'Score', 'Upside', 'Verdict']
const NUMERIC_COLUMNS = new Set(['Rank', 'Score', 'Upside', 'Weight', 'Count', 'Heat'])
const th = (label) => el('th', { scope: 'col', class: NUMERIC_COLUMNS.has(label) ? 'num' : null }, label)

function edgesTable(edges) {
  const cells = (e) => [
    el('td', null, text(e.theme)),
    el('td', null, text(e.segment)),
    el('td', null, text(e.track)),
    el('td', { class: 'num', 'data-label': 'weight' }, num(e.weight, 2)),
    el('td', { class: 'wrap' }, text(e.evidence)),
  ]
  const head = el('thead', null, el('tr', null, ...['Theme', 'Segment', 'Track', 'Weight', 'Evidence'].map(th)))
  const body = el('tbody', null, ...edges.map((e) => el('tr', null, ...cells(e))))
  return el('div', { class: 'scroll' }, el('table', { class: 'edges' }, head, body))
}

function evidenceDetail(row) {
  const facts = [
    ['Segment', text(row.segment)],
    ['Track', text(row.track)],
    ['Heat', num(row.heat)],
    ['Transmission', num(row.transmission, 2)],
    ['Logic', text(row.logic_state)],
    ['Card', text(row.card_rank)],
  ]
  const edges = Array.isArray(row.graph_evidence) ? row.graph_evidence : []
  return el(
    'div',
    { class: 'evidence' },
    el('dl', { class: 'facts small' }, ...facts.map(([k, v]) => el('div', null, el('dt', null, k), el('dd', null, v)))),
    edges.length === 0 ? el('p', { class: 'muted' }, 'No graph evidence.') : edgesTable(edges),
  )
}

function planRow(row, index, tableId) {
  const detailId = `${tableId}-evidence-${index}`
  const toggle = el(
    'button',
    { type: 'button', class: 'toggle', 'aria-expanded': 'false', 'aria-controls': detailId, title: 'Graph evidence' },
    '▸',
  )
  const tr = el(
    'tr',
    { class: 'row', 'data-code': row.code },
    el('td', null, toggle),
    el('td', { class: 'num rank', 'data-label': '#' }, text(row.rank)),
    el('td', { class: 'code' }, text(row.code)),
    el('td', { class: 'name' }, text(row.name)),
    el('td', { class: 'theme', 'data-label': 'Theme' }, text(row.theme)),
    el('td', { class: 'num score', 'data-label': 'Score' }, num(row.score)),
    el('td', { class: 'num upside', 'data-label': 'Upside' }, pct(row.upside)),
    el('td', { class: 'verdict' }, text(row.verdict_text)),
  )
  const detail = el(
    'tr',
    { id: detailId, class: 'detail', hidden: true },
    el('td', { colspan: PLAN_COLUMNS.length }, evidenceDetail(row)),
  )
  const flip = () => {
    const open = detail.hidden
    detail.hidden = !open
    toggle.setAttribute('aria-expanded', String(open))
    toggle.textContent = open ? '▾' : '▸'
  }
  toggle.addEventListener('click', (event) => {
    event.stopPropagation()
    flip()
  })
  tr.addEventListener('click', flip)
  return [tr, detail]
}

function renderPlanTable(tableId, rows) {
  const table = $(tableId)
  const head = el('thead', null, el('tr', null, ...PLAN_COLUMNS.map(th)))
  const body = el('tbody', null)
  if (rows.length === 0)
    body.append(el('tr', null, el('td', { colspan: PLAN_COLUMNS.length, class: 'muted' }, 'No rows.')))
  rows.forEach((row, i) => {
    body.append(...planRow(row, i, tableId))
  })
  table.replaceChildren(head, body)
}

function renderSegments(segments) {
  const head = el('thead', null, el('tr', null, ...['Theme', 'Segment', 'Count', 'Heat', 'Codes'].map(th)))
  const body = el('tbody', null)
  if (segments.length === 0) body.append(el('tr', null, el('td', { colspan: 5, class: 'muted' }, 'None.')))
  for (const s of segments) {
    body.append(
      el(
        'tr',
        null,
        el('td', null, text(s.theme)),
        el('td', null, text(s.segment)),
        el('td', { class: 'num' }, text(s.count)),
        el('td', { class: 'num' }, num(s.heat)),
        el('td', { class: 'wrap' }, Array.isArray(s.codes) ? s.codes.join(', ') : DASH),
      ),
    )
  }
  $('segments-table').replaceChildren(head, body)
}

function renderWatch(watch) {
  const list = $('watch-list')
  if (watch.length === 0) {
    list.replaceChildren(el('li', { class: 'muted' }, 'Nothing on watch.'))
    return
  }
  list.replaceChildren(
    ...watch.map((w) =>
      el(
        'li',
        { 'data-code': w.code },
        el('span', { class: 'code' }, text(w.code)),
        ' ',
        el('span', { class: 'name' }, text(w.name)),
        ' ',
        el('span', { class: 'badge' }, text(w.reason)),
        el('div', { class: 'muted' }, text(w.text)),
      ),
    ),
  )
}

function renderPlan(plan) {
  $('plan-date').textContent = text(plan.date)
  $('snapshot').textContent = text(plan.snapshot)
  $('snapshot').className = plan.snapshot === 'present' ? 'ok' : 'warn'
  $('plan-source').textContent = text(plan.plan_source)
  $('plan-source').className = plan.plan_source === 'snapshot' ? 'ok' : 'warn'
  $('generated-at').textContent = text(plan.generated_at)
  $('plan-version').textContent = text(plan.plan_version)
  const counts = Object.entries(plan.card_counts ?? {})
  $('card-counts').replaceChildren(
    ...(counts.length === 0
      ? [DASH]
      : counts.map(([k, v]) => el('span', { class: 'chip' }, `${k} `, el('b', null, text(v))))),
  )
  renderRegime(plan.regime)
  renderMarket(plan.market)
  const main = plan.main ?? []
  const observe = plan.observe ?? []
  $('main-count').textContent = `(${main.length})`
  $('observe-count').textContent = `(${observe.length})`
  renderPlanTable('main-table', main)
  renderPlanTable('observe-table', observe)
  renderSegments(plan.segments_pointed ?? [])
  renderWatch(plan.watch ?? [])
}

// ---- dates and loading ----------------------------------------------------------------------------------

let currentDate = ''
let planRequest = 0

async function loadPlan(date) {
  const request = ++planRequest
  document.body.setAttribute('aria-busy', 'true')
  try {
    const plan = await getJson(date ? `/plan?date=${encodeURIComponent(date)}` : '/plan')
    if (request !== planRequest) return // a later date was picked meanwhile
    currentDate = plan.date
    renderPlan(plan)
    showError('')
    const url = new URL(window.location.href)
    url.searchParams.set('date', plan.date)
    window.history.replaceState(null, '', url)
    document.body.dataset.loadedDate = plan.date
  } catch (err) {
    if (request === planRequest) showError(`Plan for ${date || 'the latest date'} could not be loaded: ${err.message}`)
  } finally {
    if (request === planRequest) document.body.removeAttribute('aria-busy')
  }
}

async function init() {
  const picker = $('date-picker')
  let dates = []
  try {
    dates = (await getJson('/plan/dates?limit=120')).dates ?? []
  } catch (err) {
    showError(`Plan dates could not be loaded: ${err.message}`)
  }
  picker.replaceChildren(...dates.map((d) => el('option', { value: d }, d)))
  picker.disabled = dates.length === 0
  if (dates.length === 0) picker.append(el('option', null, 'no dates'))
  const wanted = new URLSearchParams(window.location.search).get('date')
  const initial = wanted && dates.includes(wanted) ? wanted : dates[0]
  if (initial) picker.value = initial
  picker.addEventListener('change', () => loadPlan(picker.value))
  $('lookup-form').addEventListener('submit', (event) => {
    event.preventDefault()
    lookup($('lookup-codes').value)
  })
  if (dates.length > 0) await loadPlan(initial)
}

// ---- code lookup ----------------------------------------------------------------------------------------

function stateFacts(s) {
  const facts = [
    ['State', text(s.logic_state)],
    ['Since', text(s.state_since)],
    ['Days', text(s.days_in_state)],
    ['Rule', text(s.state_rule)],
    ['Source', text(s.source)],
    ['Score / EMA', `${num(s.score)} / ${num(s.score_ema)}`],
  ]
  if (s.source === 'daily')
    facts.push(['Stored verdict', `${text(s.verdict)} #${text(s.card_rank)} (v${text(s.plan_version)})`])
  return facts
}

/** A lookup text: the key is left out when its computation failed, and null when the code has no value. */
function optional(state, key, what) {
  if (!(key in state)) return `unavailable (the ${what} lookup failed)`
  return state[key] === null ? `no ${what} for this code` : String(state[key])
}

function lookupCard(key, verdict, state) {
  const code = verdict?.code ?? state?.code
  const name = verdict?.name
  const head = el(
    'h3',
    null,
    el('span', { class: 'code' }, text(code ?? key)),
    name ? ` ${name}` : '',
    code && code !== key ? el('span', { class: 'muted' }, ` (input ${key})`) : '',
  )
  const verdictPart = !verdict
    ? el('p', { class: 'muted' }, 'No verdict.')
    : verdict.error
      ? el('p', { class: 'error verdict-error' }, `Verdict: ${verdict.error}`)
      : el(
          'p',
          { class: 'verdict-line' },
          el('span', { class: `badge decision decision-${verdict.decision}` }, text(verdict.decision)),
          verdict.reason ? el('span', { class: 'badge reason' }, text(verdict.reason)) : '',
          ' ',
          el('span', { class: 'verdict-text' }, text(verdict.verdict_text)),
        )
  let statePart
  if (!state) statePart = el('p', { class: 'muted' }, 'No logic state.')
  else if (state.error) statePart = el('p', { class: 'error state-error' }, `Logic state: ${state.error}`)
  else {
    statePart = el(
      'div',
      { class: 'state' },
      el(
        'dl',
        { class: 'facts small' },
        ...stateFacts(state).map(([k, v]) => el('div', null, el('dt', null, k), el('dd', null, v))),
      ),
      el(
        'p',
        { class: 'valuation' },
        el('strong', null, 'Valuation: '),
        optional(state, 'valuation_text', 'valuation'),
      ),
      el(
        'p',
        { class: 'review' },
        el('strong', null, 'Company review: '),
        optional(state, 'company_review_text', 'review'),
      ),
    )
  }
  return el('article', { class: 'lookup-card', 'data-input': key }, head, verdictPart, statePart)
}

let lookupRequest = 0

async function lookup(raw) {
  const request = ++lookupRequest
  const codes = raw
    .split(/[\s,，;]+/)
    .map((c) => c.trim())
    .filter((c) => c !== '')
  const box = $('lookup-results')
  if (codes.length === 0) {
    box.replaceChildren(el('p', { class: 'error' }, 'Enter one or more codes.'))
    return
  }
  box.replaceChildren(el('p', { class: 'muted' }, 'Looking up…'))
  const query = `codes=${encodeURIComponent(codes.join(','))}${currentDate ? `&date=${encodeURIComponent(currentDate)}` : ''}`
  const [verdicts, states] = await Promise.allSettled([
    getJson(`/plan/verdict?${query}`),
    getJson(`/logic_state?${query}`),
  ])
  if (request !== lookupRequest) return // a newer lookup was started meanwhile
  const out = []
  if (verdicts.status === 'rejected')
    out.push(el('p', { class: 'error' }, `Verdict lookup failed: ${verdicts.reason.message}`))
  if (states.status === 'rejected')
    out.push(el('p', { class: 'error' }, `Logic state lookup failed: ${states.reason.message}`))
  const verdictList = verdicts.status === 'fulfilled' ? (verdicts.value.verdicts ?? []) : []
  const stateList = states.status === 'fulfilled' ? (states.value.states ?? []) : []
  const stateFor = (v) =>
    stateList.find((s) => v.code !== undefined && s.code === v.code) ??
    stateList.find((s) => s.input === v.input && s.error)
  const entries =
    verdictList.length > 0
      ? verdictList.map((v) => [v.input, v, stateFor(v)])
      : stateList.map((s) => [s.input, null, s])
  for (const [key, v, s] of entries) out.push(lookupCard(key, v, s))
  box.replaceChildren(...out)
}

init()
