// The plan viewer: reads the JSON endpoints and builds the page with textContent only (never innerHTML).
import { pickLanguage, translator } from '/i18n.js'

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
    if (child === null || child === undefined || child === '') continue
    node.append(typeof child === 'string' || typeof child === 'number' ? String(child) : child)
  }
  return node
}

const DASH = '–'
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/
const LANG_KEY = 'stockplan.viewer.lang'
const SHANGHAI = 'Asia/Shanghai'
const COMPONENTS = ['momentum', 'trend', 'heat', 'upside', 'liquidity', 'quality']

const isNum = (v) => typeof v === 'number' && Number.isFinite(v)
const text = (v) => (v === null || v === undefined || v === '' ? DASH : String(v))
const num = (v, digits = 1) => (isNum(v) ? v.toFixed(digits) : DASH)
const pct = (v, digits = 1) => (isNum(v) ? `${(v * 100).toFixed(digits)}%` : DASH)
const signedPct = (v, digits = 2) => (isNum(v) ? `${v > 0 ? '+' : ''}${(v * 100).toFixed(digits)}%` : DASH)
/** A-share colours: red up, green down. */
const trendClass = (v) => (!isNum(v) || v === 0 ? 'flat' : v > 0 ? 'up' : 'down')

function isRealDate(s) {
  if (!ISO_DATE.test(s)) return false
  const d = new Date(`${s}T00:00:00Z`)
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s
}

// ---- state ---------------------------------------------------------------------------------------------

const state = {
  i18n: translator('en'),
  dates: [],
  plan: null,
  /** The date notice (a bad `?date=`), kept until another date is picked. */
  notice: null,
  error: null,
  lookup: { codes: [], date: '', result: null },
}
const tr = (key, params) => state.i18n.t(key, params)
const term = (group, key) => state.i18n.term(group, key)

// ---- formatting in the page's language -------------------------------------------------------------------

/** Yuan as 亿/万 in Chinese, B/M in English. */
function amount(v) {
  if (!isNum(v)) return DASH
  if (state.i18n.lang === 'zh') {
    if (Math.abs(v) >= 1e8) return `${(v / 1e8).toFixed(2)}亿`
    if (Math.abs(v) >= 1e4) return `${(v / 1e4).toFixed(0)}万`
    return v.toFixed(0)
  }
  for (const [size, unit] of [
    [1e12, 'T'],
    [1e9, 'B'],
    [1e6, 'M'],
  ])
    if (Math.abs(v) >= size) return `${(v / size).toFixed(2)}${unit}`
  return v.toLocaleString('en-US')
}

/** An instant as `YYYY-MM-DD HH:mm` in Asia/Shanghai, with the zone named. */
function shanghaiTime(iso) {
  const d = new Date(iso)
  if (!iso || Number.isNaN(d.getTime())) return DASH
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', {
      timeZone: SHANGHAI,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(d)
      .map((p) => [p.type, p.value]),
  )
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute} ${tr('tz')}`
}

function weekday(date) {
  return new Intl.DateTimeFormat(state.i18n.locale, { weekday: 'short', timeZone: 'UTC' }).format(
    new Date(`${date}T00:00:00Z`),
  )
}

/** The session a plan is for: the next data date when known, else the next weekday (holidays unknown). */
function sessionOf(date) {
  const later = state.dates.filter((d) => d > date).sort()
  if (later.length > 0) return { date: later[0], known: true }
  const d = new Date(`${date}T00:00:00Z`)
  do d.setUTCDate(d.getUTCDate() + 1)
  while (d.getUTCDay() === 0 || d.getUTCDay() === 6)
  return { date: d.toISOString().slice(0, 10), known: false }
}

// ---- fetching ------------------------------------------------------------------------------------------

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

function renderMessages() {
  const notice = $('date-notice')
  notice.textContent = state.notice ? tr(state.notice.key, state.notice.params) : ''
  notice.hidden = !state.notice
  const box = $('error')
  box.textContent = state.error ? tr(state.error.key, state.error.params) : ''
  box.hidden = !state.error
}

// ---- static text ----------------------------------------------------------------------------------------

function applyLanguage() {
  const { lang } = state.i18n
  document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en'
  document.title = tr('page.title')
  for (const node of document.querySelectorAll('[data-i18n]')) node.textContent = tr(node.dataset.i18n)
  for (const node of document.querySelectorAll('[data-i18n-aria-label]'))
    node.setAttribute('aria-label', tr(node.dataset.i18nAriaLabel))
  const sw = $('lang-switch')
  sw.textContent = tr('lang.switch')
  sw.setAttribute('lang', lang === 'zh' ? 'en' : 'zh')
  sw.setAttribute('aria-label', tr('lang.switch.label'))
  $('glossary-list').replaceChildren(
    ...[
      ...state.i18n.glossary,
      ...COMPONENTS.map((c) => [term('component', c), term('componentTip', c)]),
      ...['forming', 'confirmed', 'weakening', 'broken'].map((s) => [term('state', s), term('stateTip', s)]),
    ].flatMap(([word, meaning]) => [
      el('dt', { class: 'glossary-term' }, word),
      el('dd', { class: 'glossary-meaning' }, meaning),
    ]),
  )
}

// ---- regime and market --------------------------------------------------------------------------------

const MARKET_ITEMS = {
  breadth: (m) => [
    ['up_down_flat', `${text(m.up)} / ${text(m.down)} / ${text(m.flat)}`],
    ['up_ratio', pct(m.up_ratio)],
  ],
  limits: (m) => [
    ['limit_up', text(m.limit_up)],
    ['limit_down', text(m.limit_down)],
  ],
  turnover: (m) => [
    ['amount', amount(m.amount)],
    ['ma20', amount(m.ma20)],
    ['ratio', num(m.ratio, 2)],
  ],
  trend: (m) => [
    ['index', text(m.index)],
    ['close_ma20', `${num(m.close)} / ${num(m.ma20)}`],
    ['above_ma20', pct(m.pct_above_ma20)],
  ],
}

function renderMarket(market) {
  const box = $('market')
  const names = Object.keys(market ?? {})
  if (names.length === 0) {
    box.replaceChildren(el('p', { class: 'empty-reason' }, tr('regime.no_market')))
    return
  }
  box.replaceChildren(
    ...names.map((name) => {
      const item = market[name] ?? {}
      const lines = MARKET_ITEMS[name]
        ? MARKET_ITEMS[name](item).map(([k, v]) => [term('market', k), v])
        : Object.entries(item)
            .filter(([k]) => k !== 'signal')
            .map(([k, v]) => [k, typeof v === 'object' ? JSON.stringify(v) : text(v)])
      return el(
        'div',
        { class: 'market-item', 'data-item': name },
        el(
          'h3',
          null,
          term('market', name),
          ' ',
          el('span', { class: `badge signal-${text(item.signal)}` }, term('signal', item.signal)),
        ),
        el('dl', null, ...lines.map(([k, v]) => el('div', null, el('dt', null, k), el('dd', null, v)))),
      )
    }),
  )
}

function renderRegime(regime) {
  const status = $('regime-status')
  status.textContent = term('regime', regime?.status)
  status.dataset.status = text(regime?.status)
  status.className = `badge regime-${text(regime?.status)}`
  $('regime-weak').textContent =
    regime?.weak_day === null || regime?.weak_day === undefined ? tr('n/a') : regime.weak_day ? tr('yes') : tr('no')
  $('regime-source').textContent = regimeSource(regime?.source)
}

// ---- plan tables ----------------------------------------------------------------------------------------

/** [key, cell class, numeric] per column; the first is the expand button. */
const PLAN_COLUMNS = [
  ['', 'toggle-cell', false],
  ['col.card', 'card-rank', true],
  ['col.code', 'code', false],
  ['col.name', 'name', false],
  ['col.close', 'close', true],
  ['col.chg', 'chg', true],
  ['col.turnover', 'turnover', true],
  ['col.score', 'score', true],
  ['col.rank', 'rank', true],
  ['col.theme', 'theme', false],
  ['col.upside', 'upside', true],
  ['col.verdict', 'verdict', false],
]

function headCell(key, numeric) {
  if (!key) return el('th', { scope: 'col', class: 'toggle-cell' })
  const tip = state.i18n.t(`${key}.tip`)
  return el('th', { scope: 'col', class: numeric ? 'num' : null, title: tip === `${key}.tip` ? null : tip }, tr(key))
}

function componentsTip(row) {
  const c = row.components
  if (!c || typeof c !== 'object') return null
  return COMPONENTS.filter((k) => isNum(c[k]))
    .map((k) => `${term('component', k)} ${num(c[k])}`)
    .join(' + ')
}

function logicBadge(stateName, days) {
  if (!stateName) return null
  return el(
    'span',
    { class: `badge logic logic-${stateName}`, title: term('stateTip', stateName), 'data-state': stateName },
    term('state', stateName),
    isNum(days) && days > 0 ? ` · ${tr('days', { n: days })}` : '',
  )
}

function flagBadges(flags) {
  if (!Array.isArray(flags)) return []
  return flags.map((f) =>
    el('span', { class: `badge flag flag-${f}`, title: term('flagTip', f), 'data-flag': f }, term('flag', f)),
  )
}

function edgesTable(edges) {
  const cells = (e) => [
    el('td', null, text(e.theme)),
    el('td', null, text(e.segment)),
    el('td', null, text(e.track)),
    el('td', { class: 'num', 'data-label': tr('col.weight') }, num(e.weight, 2)),
    el('td', { class: 'wrap' }, text(e.evidence)),
  ]
  const head = el(
    'thead',
    null,
    el(
      'tr',
      null,
      ...['col.theme', 'col.segment', 'col.track', 'col.weight', 'col.evidence'].map((k) =>
        headCell(k, k === 'col.weight'),
      ),
    ),
  )
  const body = el('tbody', null, ...edges.map((e) => el('tr', null, ...cells(e))))
  return el('div', { class: 'scroll' }, el('table', { class: 'edges' }, head, body))
}

function componentsList(row) {
  const c = row.components
  if (!c || typeof c !== 'object') return el('p', { class: 'empty-reason' }, tr('detail.no_components'))
  return el(
    'dl',
    { class: 'components' },
    ...COMPONENTS.map((k) =>
      el(
        'div',
        { class: 'component', title: term('componentTip', k), 'data-component': k },
        el('dt', { class: 'component-name' }, term('component', k)),
        el('dd', { class: 'component-points' }, num(c[k])),
      ),
    ),
  )
}

function evidenceDetail(row) {
  const facts = [
    [tr('col.heat'), num(row.heat), term('componentTip', 'heat')],
    [state.i18n.glossary[1][0], num(row.transmission, 2), state.i18n.glossary[1][1]],
    [tr('col.segment'), text(row.segment), null],
    [tr('col.track'), text(row.track), state.i18n.glossary[2][1]],
    [tr('col.amount'), amount(row.amount), null],
  ]
  const edges = Array.isArray(row.graph_evidence) ? row.graph_evidence : []
  return el(
    'div',
    { class: 'evidence' },
    el('h4', null, tr('detail.components')),
    componentsList(row),
    el(
      'dl',
      { class: 'facts small' },
      ...facts.map(([k, v, tip]) => el('div', { title: tip }, el('dt', null, k), el('dd', null, v))),
    ),
    edges.length === 0 ? el('p', { class: 'empty-reason' }, tr('empty.evidence')) : edgesTable(edges),
  )
}

function planRow(row, index, tableId) {
  const detailId = `${tableId}-evidence-${index}`
  const toggle = el(
    'button',
    {
      type: 'button',
      class: 'toggle',
      'aria-expanded': 'false',
      'aria-controls': detailId,
      'aria-label': tr('detail.toggle', { code: row.code }),
    },
    '▸',
  )
  const tip = componentsTip(row)
  const tr_ = el(
    'tr',
    { class: 'row', 'data-code': row.code },
    el('td', { class: 'toggle-cell' }, toggle),
    el('td', { class: 'num card-rank', 'data-label': tr('col.card') }, text(row.card_rank)),
    el('td', { class: 'code' }, text(row.code)),
    el('td', { class: 'name' }, text(row.name)),
    el('td', { class: 'num close', 'data-label': tr('col.close') }, num(row.close, 2)),
    el('td', { class: `num chg ${trendClass(row.pct_chg)}`, 'data-label': tr('col.chg') }, signedPct(row.pct_chg)),
    el('td', { class: 'num turnover', 'data-label': tr('col.turnover') }, pct(row.turnover_rate, 2)),
    el('td', { class: 'num score', 'data-label': tr('col.score'), title: tip }, num(row.score)),
    el('td', { class: 'num rank', 'data-label': tr('col.rank') }, text(row.rank)),
    el('td', { class: 'theme', 'data-label': tr('col.theme') }, text(row.theme)),
    el('td', { class: `num upside ${trendClass(row.upside)}`, 'data-label': tr('col.upside') }, pct(row.upside)),
    el('td', { class: 'verdict' }, logicBadge(row.logic_state, row.logic_days), ...flagBadges(row.flags)),
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
  tr_.addEventListener('click', flip)
  return [tr_, detail]
}

/** Why a list is empty, in words: the day's screening counts say what happened to the candidates. */
function emptyReason(list, plan) {
  const counts = plan.card_counts ?? {}
  const screens = ['held', 'suspended', 'st', 'new_listing', 'illiquid'].filter(
    (k) => isNum(counts[k]) && counts[k] > 0,
  )
  const n = screens.reduce((sum, k) => sum + counts[k], 0)
  const screened =
    n === 0
      ? tr('empty.none_screened')
      : tr('empty.screened', {
          n,
          parts: screens.map((k) => `${term('screen', k)} ${counts[k]}`).join(state.i18n.lang === 'zh' ? '、' : ', '),
        })
  return tr(`empty.${list}.no_tier`, { date: plan.date, screened })
}

function showEmpty(id, message) {
  const node = $(id)
  node.textContent = message ?? ''
  node.hidden = !message
}

function renderPlanTable(list, rows, plan) {
  const tableId = `${list}-table`
  const table = $(tableId)
  showEmpty(`${list}-empty`, rows.length === 0 ? emptyReason(list, plan) : null)
  table.hidden = rows.length === 0
  const head = el('thead', null, el('tr', null, ...PLAN_COLUMNS.map(([key, , numeric]) => headCell(key, numeric))))
  const body = el('tbody', null)
  rows.forEach((row, i) => {
    body.append(...planRow(row, i, tableId))
  })
  table.replaceChildren(head, body)
}

function renderSegments(segments) {
  showEmpty('segments-empty', segments.length === 0 ? tr('empty.segments') : null)
  $('segments-table').hidden = segments.length === 0
  const head = el(
    'thead',
    null,
    el(
      'tr',
      null,
      ...['col.theme', 'col.segment', 'col.count', 'col.heat', 'col.codes'].map((k) =>
        headCell(k, k === 'col.count' || k === 'col.heat'),
      ),
    ),
  )
  const body = el(
    'tbody',
    null,
    ...segments.map((s) =>
      el(
        'tr',
        null,
        el('td', null, text(s.theme)),
        el('td', null, text(s.segment)),
        el('td', { class: 'num' }, text(s.count)),
        el('td', { class: 'num', title: term('componentTip', 'heat') }, num(s.heat)),
        el('td', { class: 'wrap' }, Array.isArray(s.codes) ? s.codes.join(', ') : DASH),
      ),
    ),
  )
  $('segments-table').replaceChildren(head, body)
}

function renderWatch(watch, plan) {
  const list = $('watch-list')
  const earliest = state.dates.length > 0 && plan.date === state.dates[state.dates.length - 1]
  showEmpty(
    'watch-empty',
    watch.length === 0 ? (earliest ? tr('empty.watch.first', { date: plan.date }) : tr('empty.watch.kept')) : null,
  )
  list.replaceChildren(
    ...watch.map((w) =>
      el(
        'li',
        { 'data-code': w.code },
        el('span', { class: 'code' }, text(w.code)),
        ' ',
        el('span', { class: 'name' }, text(w.name)),
        ' ',
        el('span', { class: 'badge reason', 'data-reason': w.reason, title: w.text }, term('reason', w.reason)),
      ),
    ),
  )
}

function renderExamples(plan) {
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

/** card_counts keys: the decisions, the screening drops and the selection reasons, as words. */
function countLabel(key) {
  if (['main', 'observe', 'reject'].includes(key)) return term('decision', key)
  if (['held', 'suspended', 'st', 'new_listing', 'illiquid'].includes(key)) return term('screen', key)
  return term('reason', key)
}

function renderPlan() {
  const plan = state.plan
  if (!plan) return
  const session = sessionOf(plan.date)
  $('session-heading').textContent = tr('session.heading', { session: `${session.date} ${weekday(session.date)}` })
  $('session-heading').dataset.session = session.date
  $('session-note').textContent = tr(session.known ? 'session.known' : 'session.expected')
  $('plan-date').textContent = text(plan.date)
  $('snapshot').textContent = term('snapshot', plan.snapshot)
  $('snapshot').className = plan.snapshot === 'present' ? 'ok' : 'warn'
  $('plan-source').textContent = term('planSource', plan.plan_source)
  $('plan-source').className = plan.plan_source === 'snapshot' ? 'ok' : 'warn'
  const generated = $('generated-at')
  generated.textContent = shanghaiTime(plan.generated_at)
  generated.setAttribute('datetime', text(plan.generated_at))
  $('plan-version').textContent = text(plan.plan_version)
  const counts = Object.entries(plan.card_counts ?? {})
  $('card-counts').replaceChildren(
    ...(counts.length === 0
      ? [DASH]
      : counts.map(([k, v]) =>
          el('span', { class: 'chip', 'data-key': k }, `${countLabel(k)} `, el('b', null, text(v))),
        )),
  )
  renderRegime(plan.regime)
  renderMarket(plan.market)
  const main = plan.main ?? []
  const observe = plan.observe ?? []
  $('main-count').textContent = `(${main.length})`
  $('observe-count').textContent = `(${observe.length})`
  renderPlanTable('main', main, plan)
  renderPlanTable('observe', observe, plan)
  renderSegments(plan.segments_pointed ?? [])
  renderWatch(plan.watch ?? [], plan)
  renderExamples(plan)
}

// ---- dates and loading ----------------------------------------------------------------------------------

let planRequest = 0

async function loadPlan(date) {
  const request = ++planRequest
  document.body.setAttribute('aria-busy', 'true')
  // a lookup on screen belongs to the date it was made for: redo it for the new date
  if (state.lookup.codes.length > 0 && state.lookup.date !== date) lookup(state.lookup.codes.join(', '), date)
  try {
    const plan = await getJson(`/plan?date=${encodeURIComponent(date)}`)
    if (request !== planRequest) return // a later date was picked meanwhile
    state.plan = plan
    state.error = null
    renderPlan()
    renderMessages()
    const url = new URL(window.location.href)
    url.searchParams.set('date', plan.date)
    window.history.replaceState(null, '', url)
    document.body.dataset.loadedDate = plan.date
  } catch (err) {
    if (request === planRequest) {
      state.error = { key: 'error.plan', params: { date, error: err.message } }
      renderMessages()
    }
  } finally {
    if (request === planRequest) document.body.removeAttribute('aria-busy')
  }
}

function pickDate(date) {
  const picker = $('date-picker')
  if (!state.dates.includes(date) || date === picker.value) return
  picker.value = date
  state.notice = null
  renderMessages()
  loadPlan(date)
}

function setLanguage(lang) {
  state.i18n = translator(lang)
  try {
    localStorage.setItem(LANG_KEY, lang)
  } catch {
    // storage unavailable (private mode): the choice lasts for this page only
  }
  applyLanguage()
  renderMessages()
  renderPlan()
  renderLookup()
}

function onKey(event) {
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return
  const typing = ['INPUT', 'SELECT', 'TEXTAREA'].includes(document.activeElement?.tagName ?? '')
  if (event.key === 'Escape' && document.activeElement === $('lookup-codes')) {
    $('lookup-codes').value = ''
    return
  }
  if (typing) return
  if (event.key === '/') {
    event.preventDefault()
    $('lookup-codes').focus()
  } else if (event.key === '[' || event.key === ']') {
    const i = state.dates.indexOf($('date-picker').value)
    // dates are newest first: `[` goes back in time
    const next = state.dates[event.key === '[' ? i + 1 : i - 1]
    if (next) pickDate(next)
  }
}

async function init() {
  state.i18n = translator(pickLanguage(safeStorage(), navigator.languages ?? [navigator.language]))
  applyLanguage()
  const params = new URLSearchParams(window.location.search)
  const picker = $('date-picker')
  try {
    state.dates = (await getJson('/plan/dates?limit=120')).dates ?? []
  } catch (err) {
    state.error = { key: 'error.dates', params: { error: err.message } }
  }
  picker.replaceChildren(...state.dates.map((d) => el('option', { value: d }, d)))
  picker.disabled = state.dates.length === 0
  if (state.dates.length === 0) picker.append(el('option', null, tr('no_dates')))
  const wanted = params.get('date')
  let initial = state.dates[0]
  if (wanted !== null && state.dates.includes(wanted)) initial = wanted
  else if (wanted !== null && initial)
    state.notice = { key: isRealDate(wanted) ? 'date.unknown' : 'date.bad', params: { wanted, shown: initial } }
  if (initial) picker.value = initial
  renderMessages()
  picker.addEventListener('change', () => {
    state.notice = null
    renderMessages()
    loadPlan(picker.value)
  })
  $('lookup-form').addEventListener('submit', (event) => {
    event.preventDefault()
    lookup($('lookup-codes').value)
  })
  $('lang-switch').addEventListener('click', () => setLanguage(state.i18n.lang === 'zh' ? 'en' : 'zh'))
  $('print').addEventListener('click', () => window.print())
  document.addEventListener('keydown', onKey)
  if (initial) await loadPlan(initial)
}

function safeStorage() {
  try {
    return localStorage.getItem(LANG_KEY)
  } catch {
    return null
  }
}

// ---- code lookup ----------------------------------------------------------------------------------------

function verdictSentence(v, date) {
  const params = { card: v.card_rank, rank: v.rank, score: num(v.score), tier: term('tier', v.tier), date }
  if (v.decision === 'main' || v.decision === 'observe') return tr(`verdict.${v.decision}`, params)
  if (v.decision === 'absent') return tr('verdict.absent', params)
  return tr('verdict.reject', { ...params, why: term('reason', v.reason) })
}

function stateFacts(s) {
  const facts = [
    ['state.state', logicBadge(s.logic_state, null) ?? DASH],
    ['state.since', text(s.state_since)],
    ['state.days', text(s.days_in_state)],
    ['state.rule', term('rule', s.state_rule)],
    ['state.source', term('source', s.source)],
    ['state.score', `${num(s.score)} / ${num(s.score_ema)}`],
  ]
  if (s.source === 'daily' && s.verdict)
    facts.push([
      'state.stored',
      `${term('decision', s.verdict)}${isNum(s.card_rank) ? ` #${s.card_rank}` : ''} · ${tr('fact.version')} ${text(s.plan_version)}`,
    ])
  return facts
}

/** A lookup text: the key is left out when its computation failed, and null when the code has no value. */
function optional(entry, key, what) {
  if (!(key in entry)) return tr(`lookup.${what}_failed`)
  if (entry[key] === null) return tr(`lookup.no_${what}`)
  if (state.i18n.lang === 'zh') {
    const words = what === 'valuation' ? valuationWords(entry.valuation) : reviewWords(entry.company_review)
    if (words) return words
  }
  return String(entry[key])
}

const METHODS = { pe_band: 'PE 区间', pb_roe: 'PB-ROE' }
const METRICS = {
  roe: 'ROE',
  gross_margin: '毛利率',
  ocf_to_np: '现金转化',
  debt_to_assets: '资产负债率',
  np_yoy: '净利润同比',
  eps: '每股收益',
}

/** The valuation in Chinese from its object; undefined when its shape is not the one known here. */
function valuationWords(v) {
  const sc = v?.scenarios
  if (!sc || !isNum(sc.neutral?.value)) return undefined
  return `中性估值 ${num(sc.neutral.value, 2)}（安全边际 ${pct(sc.neutral.mos)}），悲观 ${num(sc.bear?.value, 2)}，乐观 ${num(sc.bull?.value, 2)} · ${METHODS[v.method] ?? text(v.method)}`
}

/** The company review in Chinese from its object; undefined when its shape is not the one known here. */
function reviewWords(r) {
  if (!r || typeof r.grade !== 'string' || !r.metrics) return undefined
  const m = r.metrics
  const triggered = (r.invalidation ?? []).filter((c) => c.triggered)
  const checks =
    triggered.length === 0
      ? '未触发失效条件'
      : `触发失效：${triggered.map((c) => `${METRICS[c.metric] ?? c.metric} ${c.op} ${c.threshold}`).join('、')}`
  return `等级 ${r.grade}（${text(r.score)} 分）：ROE ${pct(m.roe)}，毛利率 ${pct(m.gross_margin)}，现金转化 ${num(m.ocf_to_np, 2)} · ${checks}`
}

/** The regime's source line in Chinese when it is the snapshot's count of signals. */
function regimeSource(source) {
  const m = /^snapshot (\d{4}-\d{2}-\d{2}): (\d+) items? positive, (\d+) negative$/.exec(source ?? '')
  if (state.i18n.lang !== 'zh' || !m) return text(source)
  return `${m[1]} 快照：${m[2]} 项偏多，${m[3]} 项偏空`
}

function lookupCard(key, verdict, st, date) {
  const code = verdict?.code ?? st?.code
  const name = verdict?.name
  const head = el(
    'h3',
    null,
    el('span', { class: 'code' }, text(code ?? key)),
    name ? ` ${name}` : '',
    code && code !== key ? el('span', { class: 'muted' }, ` (${tr('lookup.input', { input: key })})`) : '',
    el('span', { class: 'muted as-of', 'data-date': date }, ` · ${tr('lookup.as_of', { date })}`),
  )
  const verdictPart = !verdict
    ? el('p', { class: 'empty-reason' }, tr('lookup.no_verdict'))
    : verdict.error
      ? el('p', { class: 'error verdict-error' }, tr('lookup.verdict_error', { error: verdict.error }))
      : el(
          'p',
          { class: 'verdict-line' },
          el(
            'span',
            { class: `badge decision decision-${verdict.decision}`, 'data-decision': verdict.decision },
            term('decision', verdict.decision),
            isNum(verdict.card_rank) ? ` #${verdict.card_rank}` : '',
          ),
          verdict.reason
            ? el('span', { class: 'badge reason', 'data-reason': verdict.reason }, term('reason', verdict.reason))
            : '',
          ' ',
          // the endpoint's own line (the CLI's wording) stays at hand as the tooltip
          el('span', { class: 'verdict-text', title: verdict.verdict_text }, verdictSentence(verdict, date)),
        )
  let statePart
  if (!st) statePart = el('p', { class: 'empty-reason' }, tr('lookup.no_state'))
  else if (st.error) statePart = el('p', { class: 'error state-error' }, tr('lookup.state_error', { error: st.error }))
  else
    statePart = el(
      'div',
      { class: 'state' },
      el(
        'dl',
        { class: 'facts small' },
        ...stateFacts(st).map(([k, v]) => el('div', { 'data-fact': k }, el('dt', null, tr(k)), el('dd', null, v))),
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

function renderLookup() {
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
  const verdictList = verdicts.value?.verdicts ?? []
  const stateList = states.value?.states ?? []
  const stateFor = (v) =>
    stateList.find((s) => v.code !== undefined && s.code === v.code) ??
    stateList.find((s) => s.input === v.input && s.error)
  const entries =
    verdictList.length > 0
      ? verdictList.map((v) => [v.input, v, stateFor(v)])
      : stateList.map((s) => [s.input, null, s])
  for (const [key, v, s] of entries) out.push(lookupCard(key, v, s, date))
  box.replaceChildren(...out)
}

let lookupRequest = 0

async function lookup(raw, date = $('date-picker').value) {
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

init()
