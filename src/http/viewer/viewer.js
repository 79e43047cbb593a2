// The plan viewer: reads the JSON endpoints and builds the page with textContent only (never innerHTML).
import { pickLanguage, translator } from '/i18n.js'
import { codeErrorWords, emptyWhy, isCodeError, logicRuleWords, tierRuleWords } from '/rules.js'
import { drawStockChart } from '/stock-chart.js'
import { csvText, matchesFilter, sortRows } from '/table.js'

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
  /** The previous plan date's plan (for what changed), or null on the earliest date. */
  previous: null,
  previousError: null,
  /** Fundamentals and the previous day's rank of the rows on screen, by code. */
  facts: new Map(),
  /** Filter text and sort of each plan table; they stay when the date or language changes. */
  views: { main: { filter: '', sort: '', dir: 'asc' }, observe: { filter: '', sort: '', dir: 'asc' } },
  /** The stock panel: the code and date shown, and its data. */
  stock: { code: null },
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
  renderGlossary()
}

/** The glossary: the score's parts as the plan on screen has them (signals from PLAN_VERSION 3), and the states. */
function renderGlossary() {
  const version = Number.parseInt(state.plan?.plan_version ?? '', 10)
  const parts =
    Number.isFinite(version) && version >= 3
      ? Object.keys(state.i18n.terms.signal_name).map((k) => [term('signal_name', k), term('signalTip', k)])
      : COMPONENTS.map((c) => [term('component', c), term('componentTip', c)])
  $('glossary-list').replaceChildren(
    ...[
      ...state.i18n.glossary,
      ...parts,
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

/** Points each component of a PLAN_VERSION 2 row could reach (that version's BUILD_RULES.points). */
const COMPONENT_MAX = { momentum: 15, trend: 10, heat: 35, upside: 20, liquidity: 10, quality: 10 }

/** Yuan as 亿 in Chinese and B in English, for market values. */
function marketValue(v) {
  if (!isNum(v)) return DASH
  return state.i18n.lang === 'zh'
    ? `${(v / 1e8).toFixed(v >= 1e10 ? 0 : 1)}亿`
    : `${(v / 1e9).toFixed(v >= 1e11 ? 0 : 1)}B`
}

const factsOf = (row) => state.facts.get(row.code) ?? null
const fundamentalsOf = (row) => factsOf(row)?.fundamentals ?? null

/** Against the previous plan: new to this list, and the change of market rank (positive: better) and score. */
function changeOf(row, list) {
  const previous = state.previous
  if (!previous) return null
  const before = factsOf(row)?.previous ?? null
  const inList = (previous[list] ?? []).some((r) => r.code === row.code)
  return {
    isNew: !inList,
    rank: before ? before.rank - row.rank : null,
    score: before ? row.score - before.score : null,
    before,
  }
}

function changeText(change) {
  if (!change) return ''
  const parts = []
  if (change.isNew) parts.push(tr('dod.new'))
  if (isNum(change.rank)) parts.push(change.rank === 0 ? '=' : `${change.rank > 0 ? '▲' : '▼'}${Math.abs(change.rank)}`)
  if (isNum(change.score)) parts.push(`${change.score >= 0 ? '+' : ''}${change.score.toFixed(1)}`)
  return parts.join(' ')
}

function changeCell(row, list) {
  const change = changeOf(row, list)
  const cell = el('td', { class: 'delta', 'data-label': tr('col.delta') })
  if (!change) return cell
  const date = state.previous.date
  if (change.isNew)
    cell.append(
      el('span', { class: 'badge new', 'data-new': 'true', title: tr('dod.new.tip', { date }) }, tr('dod.new')),
    )
  if (!change.before) {
    cell.title = tr('dod.unscored', { date })
    return cell
  }
  cell.dataset.rankDelta = String(change.rank)
  cell.dataset.scoreDelta = change.score.toFixed(1)
  cell.append(
    change.isNew ? ' ' : '',
    el(
      'span',
      {
        class: `rank-delta ${trendClass(change.rank)}`,
        title: tr('dod.rank.tip', { date, prev: change.before.rank, now: row.rank }),
      },
      change.rank === 0 ? '=' : `${change.rank > 0 ? '▲' : '▼'}${Math.abs(change.rank)}`,
    ),
    ' ',
    el(
      'span',
      {
        class: `score-delta ${trendClass(change.score)}`,
        title: tr('dod.score.tip', { date, prev: num(change.before.score), now: num(row.score) }),
      },
      `${change.score >= 0 ? '+' : ''}${change.score.toFixed(1)}`,
    ),
  )
  return cell
}

/**
 * The plan tables' columns: the heading key, the cell class, whether it is a number, the value it sorts by, the
 * text it shows (and exports), and the cell itself. The first and last are buttons, never sorted or exported.
 */
const PLAN_COLUMNS = [
  { key: '', cls: 'toggle-cell' },
  { key: 'col.card', cls: 'card-rank', numeric: true, value: (r) => r.card_rank, show: (r) => text(r.card_rank) },
  { key: 'col.code', cls: 'code', value: (r) => r.code, show: (r) => text(r.code) },
  { key: 'col.name', cls: 'name', value: (r) => r.name, show: (r) => text(r.name) },
  { key: 'col.close', cls: 'close', numeric: true, value: (r) => r.close, show: (r) => num(r.close, 2) },
  {
    key: 'col.chg',
    cls: 'chg',
    numeric: true,
    value: (r) => r.pct_chg,
    show: (r) => signedPct(r.pct_chg),
    trend: (r) => r.pct_chg,
  },
  {
    key: 'col.turnover',
    cls: 'turnover',
    numeric: true,
    value: (r) => r.turnover_rate,
    show: (r) => pct(r.turnover_rate, 2),
  },
  { key: 'col.score', cls: 'score', numeric: true, value: (r) => r.score, show: (r) => num(r.score) },
  { key: 'col.rank', cls: 'rank', numeric: true, value: (r) => r.rank, show: (r) => text(r.rank) },
  {
    key: 'col.delta',
    cls: 'delta',
    numeric: true,
    value: (r, list) => changeOf(r, list)?.rank ?? null,
    show: (r, list) => changeText(changeOf(r, list)),
  },
  { key: 'col.theme', cls: 'theme', value: (r) => r.theme, show: (r) => text(r.theme) },
  {
    key: 'col.upside',
    cls: 'upside',
    numeric: true,
    value: (r) => r.upside,
    show: (r) => pct(r.upside),
    trend: (r) => r.upside,
  },
  {
    key: 'col.industry',
    cls: 'industry',
    value: (r) => factsOf(r)?.industry ?? null,
    show: (r) => text(factsOf(r)?.industry),
  },
  {
    key: 'col.mv',
    cls: 'mv',
    numeric: true,
    value: (r) => fundamentalsOf(r)?.total_mv ?? null,
    show: (r) => marketValue(fundamentalsOf(r)?.total_mv),
  },
  {
    key: 'col.circ_mv',
    cls: 'circ-mv',
    numeric: true,
    value: (r) => fundamentalsOf(r)?.circ_mv ?? null,
    show: (r) => marketValue(fundamentalsOf(r)?.circ_mv),
  },
  {
    key: 'col.pe',
    cls: 'pe',
    numeric: true,
    value: (r) => fundamentalsOf(r)?.pe_ttm ?? null,
    show: (r) => num(fundamentalsOf(r)?.pe_ttm),
  },
  {
    key: 'col.pb',
    cls: 'pb',
    numeric: true,
    value: (r) => fundamentalsOf(r)?.pb ?? null,
    show: (r) => num(fundamentalsOf(r)?.pb, 2),
  },
  { key: 'col.verdict', cls: 'verdict', show: (r) => verdictWords(r) },
]
const SORTABLE = PLAN_COLUMNS.filter((c) => c.value)
const EXPORTED = PLAN_COLUMNS.filter((c) => c.show)

function headCell(key, numeric) {
  if (!key) return el('th', { scope: 'col', class: 'toggle-cell' })
  const tip = state.i18n.t(`${key}.tip`)
  return el('th', { scope: 'col', class: numeric ? 'num' : null, title: tip === `${key}.tip` ? null : tip }, tr(key))
}

/** Whether points are per signal (PLAN_VERSION 3: no fixed maxima) rather than the six components of version 2. */
function perSignal(points) {
  const version = Number.parseInt(state.plan?.plan_version ?? '', 10)
  return (Number.isFinite(version) && version >= 3) || Object.keys(points).some((k) => !COMPONENTS.includes(k))
}

/**
 * The parts of a row's score: its points per signal (`contributions`, or `components` keyed by signal in
 * PLAN_VERSION 3), or the six components of version 2 with their maxima; null when the row has none.
 */
function scoreParts(row) {
  const given = [row.contributions, row.components].find((p) => p && typeof p === 'object' && Object.keys(p).length > 0)
  if (!given) return null
  if (perSignal(given))
    return Object.entries(given)
      .filter(([, v]) => isNum(v))
      .map(([k, v]) => ({ key: k, name: term('signal_name', k), tip: term('signalTip', k), points: v, max: null }))
  return COMPONENTS.filter((k) => isNum(given[k])).map((k) => ({
    key: k,
    name: term('component', k),
    tip: term('componentTip', k),
    points: given[k],
    max: COMPONENT_MAX[k],
  }))
}

const partText = (p) =>
  p.max === null ? `${p.name} ${p.points >= 0 ? '+' : ''}${num(p.points)}` : `${p.name} ${num(p.points)}/${p.max}`

function componentsTip(row) {
  const parts = scoreParts(row)
  return parts ? parts.map(partText).join(' + ') : null
}

/** Why the row has its tier, and which parts of its score hold it back, in words. */
function whyLines(row) {
  const lines = []
  if (row.tier_rule) lines.push(tr('why.tier', { rule: tierRuleWords(tr, row.tier_rule) }))
  const parts = scoreParts(row)
  if (parts && parts.length > 0) {
    const sep = state.i18n.lang === 'zh' ? '、' : ', '
    if (parts[0].max === null) {
      const sorted = [...parts].sort((a, b) => b.points - a.points)
      const pulls = sorted.filter((p) => p.points > 0).slice(0, 2)
      const drags = sorted
        .filter((p) => p.points < 0)
        .slice(-2)
        .reverse()
      const list = (ps) => (ps.length === 0 ? tr('changes.none') : ps.map(partText).join(sep))
      lines.push(tr('why.contributions', { up: list(pulls), down: list(drags) }))
    } else {
      const weakest = [...parts].sort((a, b) => a.points / a.max - b.points / b.max).slice(0, 2)
      lines.push(tr('why.weakest', { parts: weakest.map(partText).join(sep) }))
    }
  }
  return lines
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

/** The verdict cell in words, as its badges read (for the CSV export). */
function verdictWords(row) {
  const words = []
  if (row.logic_state)
    words.push(
      `${term('state', row.logic_state)}${isNum(row.logic_days) && row.logic_days > 0 ? ` · ${tr('days', { n: row.logic_days })}` : ''}`,
    )
  for (const f of Array.isArray(row.flags) ? row.flags : []) words.push(term('flag', f))
  return words.join(' · ')
}

function edgesTable(edges) {
  const cells = (e) => [
    el('td', null, text(e.theme)),
    el('td', null, text(e.segment)),
    el('td', null, term('track', e.track)),
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
  const parts = scoreParts(row)
  if (!parts) return el('p', { class: 'empty-reason' }, tr('detail.no_components'))
  return el(
    'dl',
    { class: 'components' },
    ...parts.map((p) =>
      el(
        'div',
        { class: 'component', title: p.tip, 'data-component': p.key },
        el('dt', { class: 'component-name' }, p.name),
        el(
          'dd',
          { class: 'component-points' },
          p.max === null ? `${p.points >= 0 ? '+' : ''}${num(p.points)}` : num(p.points),
          p.max === null ? '' : el('span', { class: 'component-max' }, ` / ${p.max}`),
        ),
      ),
    ),
  )
}

function evidenceDetail(row) {
  const facts = [
    [tr('col.heat'), num(row.heat), term('componentTip', 'heat')],
    [state.i18n.glossary[1][0], num(row.transmission, 2), state.i18n.glossary[1][1]],
    [tr('col.segment'), text(row.segment), null],
    [tr('col.track'), term('track', row.track), state.i18n.glossary[2][1]],
    [tr('col.amount'), amount(row.amount), null],
  ]
  const edges = Array.isArray(row.graph_evidence) ? row.graph_evidence : []
  return el(
    'div',
    { class: 'evidence' },
    el('h4', null, tr('detail.components')),
    componentsList(row),
    ...whyLines(row).map((line) => el('p', { class: 'why' }, line)),
    el(
      'dl',
      { class: 'facts small' },
      ...facts.map(([k, v, tip]) => el('div', { title: tip }, el('dt', null, k), el('dd', null, v))),
    ),
    edges.length === 0 ? el('p', { class: 'empty-reason' }, tr('empty.evidence')) : edgesTable(edges),
  )
}

/** A button that opens the stock panel: the code itself in a table row, the word "chart" on a lookup card. */
function chartButton(code, label = tr('col.chart')) {
  const button = el(
    'button',
    {
      type: 'button',
      class: label === code ? 'chart-open link' : 'chart-open ghost',
      'data-code': code,
      title: tr('stock.open', { code }),
    },
    label,
  )
  button.addEventListener('click', (event) => {
    event.stopPropagation()
    openStock(code)
  })
  return button
}

function planRow(row, index, tableId, list) {
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
  const cells = PLAN_COLUMNS.map((c) => {
    if (c.cls === 'toggle-cell') return el('td', { class: 'toggle-cell' }, toggle)
    if (c.cls === 'code') return el('td', { class: 'code' }, chartButton(row.code, row.code))
    if (c.cls === 'delta') return changeCell(row, list)
    if (c.cls === 'verdict')
      return el('td', { class: 'verdict' }, logicBadge(row.logic_state, row.logic_days), ...flagBadges(row.flags))
    const classes = [c.numeric ? 'num' : null, c.cls, c.trend ? trendClass(c.trend(row)) : null].filter(Boolean)
    const label = ['code', 'name'].includes(c.cls) ? null : tr(c.key)
    return el(
      'td',
      { class: classes.join(' '), 'data-label': label, title: c.cls === 'score' ? componentsTip(row) : null },
      c.show(row, list),
    )
  })
  const tr_ = el('tr', { class: 'row', 'data-code': row.code }, ...cells)
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
  const screens = ['held', 'b_share', 'suspended', 'st', 'new_listing', 'illiquid'].filter(
    (k) => isNum(counts[k]) && counts[k] > 0,
  )
  const n = screens.reduce((sum, k) => sum + counts[k], 0)
  const screened =
    n === 0
      ? tr('empty.none_screened')
      : tr('empty.screened', {
          n,
          parts: screens.map((k) => `${term('count', k)} ${counts[k]}`).join(state.i18n.lang === 'zh' ? '、' : ', '),
        })
  // the build says why main is empty (PLAN_VERSION 3); the screening counts say what happened to the rest
  if (list === 'main' && typeof plan.main_empty === 'string' && plan.main_empty)
    return tr('empty.main.rule', { date: plan.date, why: emptyWhy(tr, plan.main_empty), screened })
  return tr(`empty.${list}.no_tier`, { date: plan.date, screened })
}

function showEmpty(id, message) {
  const node = $(id)
  node.textContent = message ?? ''
  node.hidden = !message
}

/** The rows of a list as on screen: filtered, then sorted. */
function visibleRows(list) {
  const all = state.plan?.[list] ?? []
  const view = state.views[list]
  const shown = all.filter((r) =>
    matchesFilter([r.code, r.name, r.theme, r.segment, factsOf(r)?.industry, term('track', r.track)], view.filter),
  )
  const column = SORTABLE.find((c) => c.key === view.sort)
  return sortRows(shown, column ? (r) => column.value(r, list) : null, view.dir)
}

function exportCsv(list) {
  const rows = visibleRows(list)
  const csv = csvText(
    EXPORTED.map((c) => tr(c.key)),
    rows.map((r) => EXPORTED.map((c) => c.show(r, list))),
  )
  const link = el('a', {
    href: URL.createObjectURL(new Blob([csv], { type: 'text/csv;charset=utf-8' })),
    download: `plan-${state.plan.date}-${list}.csv`,
  })
  document.body.append(link)
  link.click()
  link.remove()
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000)
}

/** Filter, sort and export controls above a plan table (built once; their words follow the language). */
function renderTools(list) {
  const box = $(`${list}-tools`)
  const view = state.views[list]
  const filter = el('input', {
    type: 'search',
    class: 'table-filter',
    placeholder: tr('table.filter.placeholder'),
    'aria-label': `${tr('table.filter')} (${tr(`list.${list}`)})`,
    value: view.filter,
  })
  filter.addEventListener('input', () => {
    view.filter = filter.value
    renderPlanTable(list)
  })
  const sort = el(
    'select',
    { class: 'table-sort', 'aria-label': `${tr('table.sort')} (${tr(`list.${list}`)})` },
    el('option', { value: '' }, tr('table.sort.default')),
    ...SORTABLE.map((c) => el('option', { value: c.key }, tr(c.key))),
  )
  sort.value = view.sort
  sort.addEventListener('change', () => {
    view.sort = sort.value
    renderPlanTable(list)
  })
  const dir = el(
    'button',
    {
      type: 'button',
      class: 'table-dir ghost',
      'aria-label': tr(`table.sort.${view.dir}`),
      title: tr(`table.sort.${view.dir}`),
    },
    view.dir === 'asc' ? '↑' : '↓',
  )
  dir.addEventListener('click', () => {
    view.dir = view.dir === 'asc' ? 'desc' : 'asc'
    renderTools(list)
    renderPlanTable(list)
  })
  const csv = el('button', { type: 'button', class: 'table-csv ghost', title: tr('table.csv.tip') }, tr('table.csv'))
  csv.addEventListener('click', () => exportCsv(list))
  box.replaceChildren(
    el('label', { class: 'tool' }, el('span', null, tr('table.filter')), filter),
    el('label', { class: 'tool' }, el('span', null, tr('table.sort')), sort),
    dir,
    csv,
    el('span', { class: 'muted shown-count', id: `${list}-shown` }),
  )
}

/** Header click: sort by that column, and again to reverse. */
function sortBy(list, key) {
  const view = state.views[list]
  if (view.sort === key) view.dir = view.dir === 'asc' ? 'desc' : 'asc'
  else {
    view.sort = key
    view.dir = PLAN_COLUMNS.find((c) => c.key === key)?.numeric ? 'desc' : 'asc'
  }
  renderTools(list)
  renderPlanTable(list)
}

function renderPlanTable(list) {
  const plan = state.plan
  const tableId = `${list}-table`
  const table = $(tableId)
  const all = plan[list] ?? []
  showEmpty(`${list}-empty`, all.length === 0 ? emptyReason(list, plan) : null)
  table.hidden = all.length === 0
  $(`${list}-tools`).hidden = all.length === 0
  const view = state.views[list]
  const head = el(
    'thead',
    null,
    el(
      'tr',
      null,
      ...PLAN_COLUMNS.map((c) => {
        const th = headCell(c.key, c.numeric)
        if (!c.value) return th
        const sorted = view.sort === c.key
        th.setAttribute('aria-sort', sorted ? (view.dir === 'asc' ? 'ascending' : 'descending') : 'none')
        const button = el(
          'button',
          { type: 'button', class: 'sort' },
          th.textContent,
          sorted ? (view.dir === 'asc' ? ' ↑' : ' ↓') : '',
        )
        button.addEventListener('click', () => sortBy(list, c.key))
        th.replaceChildren(button)
        return th
      }),
    ),
  )
  const rows = visibleRows(list)
  const body = el('tbody', null)
  rows.forEach((row, i) => {
    body.append(...planRow(row, i, tableId, list))
  })
  table.replaceChildren(head, body)
  const shown = $(`${list}-shown`)
  if (shown) shown.textContent = tr('table.shown', { n: rows.length, total: all.length })
}

/** What changed since the previous plan: names new to each list and names that left it, with where they are now. */
function renderChanges() {
  const box = $('changes-body')
  const plan = state.plan
  const title = $('changes-title')
  const previous = state.previous
  if (!previous) {
    title.textContent = tr('changes.title', { date: DASH })
    box.replaceChildren(
      el(
        'p',
        { class: 'empty-reason' },
        state.previousError
          ? tr('changes.failed', { error: state.previousError })
          : tr('changes.first', { date: plan.date }),
      ),
    )
    return
  }
  title.textContent = tr('changes.title', { date: previous.date })
  const where = (code) => {
    if ((plan.main ?? []).some((r) => r.code === code)) return term('decision', 'main')
    if ((plan.observe ?? []).some((r) => r.code === code)) return term('decision', 'observe')
    const watched = (plan.watch ?? []).find((w) => w.code === code)
    return watched ? term('reason', watched.reason) : term('decision', 'reject')
  }
  const groups = []
  for (const list of ['main', 'observe']) {
    const now = plan[list] ?? []
    const before = previous[list] ?? []
    const nowCodes = new Set(now.map((r) => r.code))
    const beforeCodes = new Set(before.map((r) => r.code))
    groups.push([`changes.new_${list}`, `new-${list}`, now.filter((r) => !beforeCodes.has(r.code)), null])
    groups.push([`changes.gone_${list}`, `gone-${list}`, before.filter((r) => !nowCodes.has(r.code)), where])
  }
  box.replaceChildren(
    ...groups.map(([key, id, rows, now]) =>
      el(
        'div',
        { class: 'change-group', 'data-change': id },
        el('h3', null, tr(key), ' ', el('span', { class: 'count' }, `(${rows.length})`)),
        rows.length === 0
          ? el('p', { class: 'muted' }, tr('changes.none'))
          : el(
              'ul',
              { class: 'change-list' },
              ...rows.map((r) =>
                el(
                  'li',
                  { 'data-code': r.code },
                  el('button', { type: 'button', class: 'link code', 'data-code': r.code }, r.code),
                  ` ${text(r.name)}`,
                  now ? el('span', { class: 'muted' }, ` · ${tr('changes.now', { where: now(r.code) })}`) : '',
                ),
              ),
            ),
      ),
    ),
  )
  for (const button of box.querySelectorAll('button.code'))
    button.addEventListener('click', () => openStock(button.dataset.code))
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

/** card_counts keys (decisions, screening drops, selection reasons, the weak-market shift) as words. */
function countLabel(key) {
  return term('count', key)
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
          el(
            'span',
            { class: 'chip', 'data-key': k, title: term('countTip', k) === k ? null : term('countTip', k) },
            `${countLabel(k)} `,
            el('b', null, text(v)),
          ),
        )),
  )
  const demoted = plan.card_counts?.weak_regime_demoted
  showEmpty('weak-note', isNum(demoted) && demoted > 0 ? tr('weak.demoted', { n: demoted }) : null)
  renderRegime(plan.regime)
  renderMarket(plan.market)
  const main = plan.main ?? []
  const observe = plan.observe ?? []
  $('main-count').textContent = `(${main.length})`
  $('observe-count').textContent = `(${observe.length})`
  for (const list of ['main', 'observe']) {
    renderTools(list)
    renderPlanTable(list)
  }
  renderChanges()
  renderGlossary()
  renderSegments(plan.segments_pointed ?? [])
  renderWatch(plan.watch ?? [], plan)
  renderExamples(plan)
}

// ---- dates and loading ----------------------------------------------------------------------------------

let planRequest = 0

/** The plan, its rows' facts (fundamentals, yesterday's rank) and the previous plan, read together. */
async function loadPlan(date) {
  const request = ++planRequest
  document.body.setAttribute('aria-busy', 'true')
  // a lookup on screen belongs to the date it was made for: redo it for the new date
  if (state.lookup.codes.length > 0 && state.lookup.date !== date) lookup(state.lookup.codes.join(', '), date)
  if (state.stock.code && state.stock.date !== date) openStock(state.stock.code, date, { scroll: false })
  try {
    const previousDate = state.dates[state.dates.indexOf(date) + 1]
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
    if (request !== planRequest) return // a later date was picked meanwhile
    state.plan = plan
    state.previous = previous.value ?? null
    state.previousError = previous.error ?? null
    state.facts = facts
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
  renderStock()
}

function onKey(event) {
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return
  const typing = ['INPUT', 'SELECT', 'TEXTAREA'].includes(document.activeElement?.tagName ?? '')
  if (event.key === 'Escape' && document.activeElement === $('lookup-codes')) {
    $('lookup-codes').value = ''
    return
  }
  if (typing) return
  if (event.key === 'Escape' && state.stock.code) {
    closeStock()
    return
  }
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
  $('stock-close').addEventListener('click', closeStock)
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
  const sep = state.i18n.lang === 'zh' ? '、' : ', '
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

/** The regime's source line in Chinese when it is the snapshot's count of signals. */
function regimeSource(source) {
  const m = /^snapshot (\d{4}-\d{2}-\d{2}): (\d+) items? positive, (\d+) negative$/.exec(source ?? '')
  if (state.i18n.lang !== 'zh' || !m) return text(source)
  return `${m[1]} 快照：${m[2]} 项偏多，${m[3]} 项偏空`
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
  for (const entry of lookupEntries(verdicts.value?.verdicts ?? [], states.value?.states ?? []))
    out.push(lookupCard(entry, date))
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

// ---- stock panel ----------------------------------------------------------------------------------------

let stockRequest = 0
let stockChart = null

/** Shares as 万股/亿股 in Chinese, M/B in English. */
function volumeText(v) {
  if (!isNum(v)) return DASH
  if (state.i18n.lang === 'zh') return v >= 1e8 ? `${(v / 1e8).toFixed(2)}亿股` : `${(v / 1e4).toFixed(0)}万股`
  return v >= 1e9 ? `${(v / 1e9).toFixed(2)}B` : `${(v / 1e6).toFixed(2)}M`
}

function renderStock() {
  const panel = $('stock-panel')
  const { code, data, error, busy } = state.stock
  if (!code) {
    panel.hidden = true
    return
  }
  panel.hidden = false
  panel.dataset.code = code
  const title = $('stock-title')
  const note = $('stock-note')
  const facts = $('stock-facts')
  const changes = $('stock-changes')
  stockChart?.destroy()
  stockChart = null
  $('stock-chart').replaceChildren()
  $('stock-chart').removeAttribute('data-candles')
  $('stock-ohlc').textContent = ''
  if (busy || error || !data) {
    title.textContent = tr('stock.title', { code, name: '' })
    note.textContent = busy ? tr('stock.loading', { code }) : tr('stock.failed', { code, error })
    note.className = error ? 'error' : 'muted'
    facts.textContent = ''
    changes.replaceChildren()
    return
  }
  title.textContent = tr('stock.title', { code: data.code, name: text(data.name) })
  note.className = 'muted small-text'
  if (data.bars.length === 0) {
    note.textContent = tr('stock.no_bars', { code: data.code, date: data.date })
  } else {
    note.textContent = tr('stock.note', { n: data.bars.length, date: data.date })
    const ohlc = (i) => {
      const b = data.bars[i] ?? data.bars.at(-1)
      $('stock-ohlc').textContent = `${b.date} · ${tr('stock.candle', {
        open: num(b.open, 2),
        high: num(b.high, 2),
        low: num(b.low, 2),
        close: num(b.close, 2),
      })} · ${tr('stock.volume')} ${volumeText(b.volume)}`
    }
    stockChart = drawStockChart($('stock-chart'), data, { t: tr, volumeText, onCursor: ohlc })
    ohlc(data.bars.length - 1)
  }
  const f = data.fundamentals
  facts.textContent = f
    ? tr('stock.fundamentals', {
        mv: marketValue(f.total_mv),
        circ: marketValue(f.circ_mv),
        pe: num(f.pe_ttm),
        pb: num(f.pb, 2),
        industry: text(data.industry),
        date: f.date,
      })
    : tr('stock.no_fundamentals', { date: data.date })
  const changed = data.marks.filter((m) => m.state_since === m.date)
  changes.replaceChildren(
    el('h3', null, tr('stock.changes')),
    changed.length === 0
      ? el('p', { class: 'muted' }, tr('stock.no_changes'))
      : el(
          'ul',
          { class: 'state-changes' },
          ...changed.map((m) =>
            el(
              'li',
              { 'data-date': m.date },
              `${m.date} `,
              logicBadge(m.logic_state, null),
              ` ${text(logicRuleWords(tr, m.state_rule))} · ${term('decision', m.verdict)}`,
            ),
          ),
        ),
  )
}

async function openStock(code, date = $('date-picker').value, { scroll = true } = {}) {
  const request = ++stockRequest
  state.stock = { code, date, busy: true, data: null, error: null }
  renderStock()
  if (scroll) $('stock-panel').scrollIntoView({ block: 'start' })
  try {
    const data = await getJson(`/stock/${encodeURIComponent(code)}?date=${encodeURIComponent(date)}`)
    if (request !== stockRequest) return
    state.stock = { code, date, busy: false, data, error: null }
  } catch (err) {
    if (request !== stockRequest) return
    state.stock = { code, date, busy: false, data: null, error: err.message }
  }
  renderStock()
  $('stock-panel').dataset.loaded = `${code} ${date}`
  if (scroll) $('stock-title').focus()
}

function closeStock() {
  stockRequest++
  state.stock = { code: null }
  renderStock()
}

init()
