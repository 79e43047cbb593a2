/* Track record page: fetches /plan/track_record and draws it with uPlot (window.uPlot, served from the package),
 * in Chinese or English with the plan viewer's vocabulary, switch and remembered choice. */
import { pickLanguage, translator } from '/i18n.js'

const $ = (id) => document.getElementById(id)
const LANG_KEY = 'stockplan.viewer.lang'
const HORIZONS = ['1', '5', '20']
const DEFAULT_HORIZON = '5'
const isNum = (v) => typeof v === 'number' && Number.isFinite(v)
const pct = (v, d = 2) => (isNum(v) ? `${(v * 100).toFixed(d)}%` : '–')
const num = (v, d = 3) => (isNum(v) ? v.toFixed(d) : '–')
/** A-share colours: red for a gain, green for a loss. */
const signClass = (v) => (!isNum(v) ? '' : v > 0 ? 'up' : v < 0 ? 'down' : '')
/** Plan dates as UTC midnights, so the axis and the legend show the date itself in any browser zone. */
const dayTs = (iso) => Date.parse(`${iso}T00:00:00Z`) / 1000
const dateOf = (ts) => new Date(ts * 1000).toISOString().slice(0, 10)
const charts = []
let i18n = translator('en')
let report = null
const tr = (key, params) => i18n.t(key, params)
const term = (group, key) => i18n.term(group, key)

function safeStorage(value) {
  try {
    if (value === undefined) return localStorage.getItem(LANG_KEY)
    localStorage.setItem(LANG_KEY, value)
  } catch {
    // storage unavailable: the choice lasts for this page only
  }
  return null
}

function cell(text, cls) {
  const td = document.createElement('td')
  td.textContent = text
  if (cls) td.className = cls
  return td
}

function table(el, head, rows) {
  el.replaceChildren()
  const tr_ = document.createElement('tr')
  for (const h of head) {
    const th = document.createElement('th')
    th.textContent = h
    tr_.append(th)
  }
  el.append(tr_)
  for (const r of rows) {
    const row = document.createElement('tr')
    for (const c of r) row.append(cell(c.text, c.cls))
    el.append(row)
  }
}

function groupTable(el, groups, wordOf, limit) {
  table(
    el,
    [tr('tr.group'), tr('tr.count'), tr('tr.mean_excess'), tr('tr.hit_rate'), 't'],
    groups
      .slice(0, limit)
      .map((g) => [
        { text: wordOf(g.key) },
        { text: String(g.count) },
        { text: pct(g.mean_excess), cls: signClass(g.mean_excess) },
        { text: pct(g.hit_rate, 1) },
        { text: num(g.t, 2) },
      ]),
  )
}

function fact(label, value, cls) {
  const div = document.createElement('div')
  const dt = document.createElement('dt')
  dt.textContent = label
  const dd = document.createElement('dd')
  dd.textContent = value
  if (cls) dd.className = cls
  div.append(dt, dd)
  return div
}

function width(el) {
  return Math.max(280, el.clientWidth || 600)
}

function rolling(values, n) {
  return values.map((_, i) => {
    const window = values.slice(Math.max(0, i - n + 1), i + 1).filter((v) => v !== null)
    return window.length ? window.reduce((a, b) => a + b, 0) / window.length : null
  })
}

/** A component or signal of the IC table: `pts_momentum` (PLAN_VERSION 2) or `reversal_5d` (3), as words. */
function signalWord(key) {
  const bare = key.replace(/^pts_/, '')
  const signal = term('signal_name', bare)
  return signal !== bare ? signal : term('component', bare)
}

/** Tick steps of a date axis, in seconds: whole days only, so a short range never repeats one date. */
const DAY_STEPS = [1, 2, 5, 7, 14, 30, 61, 91, 182, 365].map((d) => d * 86_400)

/** The x axis of a dated chart: plan dates T, labelled with when the return is realised. */
function dateAxis(h) {
  return {
    label: h === 1 ? tr('tr.x_axis_one') : tr('tr.x_axis', { h }),
    incrs: DAY_STEPS,
    values: (_u, ticks) => ticks.map((t) => dateOf(t).slice(5)),
  }
}
const dateSeries = () => ({
  label: tr('stock.date'),
  value: (_u, ts) => (ts === null ? '–' : dateOf(ts)),
})

function applyLanguage() {
  document.documentElement.lang = i18n.lang === 'zh' ? 'zh-CN' : 'en'
  document.title = `${tr('tr.title')} · ${tr('page.title')}`
  for (const node of document.querySelectorAll('[data-i18n]')) node.textContent = tr(node.dataset.i18n)
  for (const node of document.querySelectorAll('[data-i18n-aria-label]'))
    node.setAttribute('aria-label', tr(node.dataset.i18nAriaLabel))
  for (const option of $('horizon').options) option.textContent = tr('tr.horizon.option', { n: option.value })
  const sw = $('lang-switch')
  sw.textContent = tr('lang.switch')
  sw.setAttribute('lang', i18n.lang === 'zh' ? 'en' : 'zh')
  sw.setAttribute('aria-label', tr('lang.switch.label'))
}

/**
 * The weights chart says what it draws: learned walk-forward when a weight moved over the range, fixed when every
 * weight stayed the same (the rules set each to its prior), so flat lines never claim to be walk-forward.
 */
function labelWeights(weights) {
  const names = [...new Set(weights.flatMap((w) => Object.keys(w.weights ?? {})))]
  const fixed = names.every((name) => new Set(weights.map((w) => w.weights?.[name] ?? null)).size <= 1)
  const set = (id, key) => {
    $(id).dataset.i18n = key
    $(id).textContent = tr(key)
  }
  set('weights-title', fixed ? 'tr.weights_fixed' : 'tr.weights')
  set('weights-note', fixed ? 'tr.weights_fixed_note' : 'tr.weights_note')
}

const millions = (cny) => (i18n.lang === 'zh' ? `${(cny / 1e8).toFixed(cny < 1e8 ? 1 : 0)} 亿` : `${cny / 1e6} M`)
const meanT = (m) => ({ text: `${pct(m.mean, 3)} (${num(m.t, 2)})`, cls: signClass(m.mean) })

/** The main book, the page's headline: its net value over the universe and CSI 300, key figures, capacity. */
function drawBook(book) {
  const section = $('book-section')
  section.hidden = !book || book.days.length === 0
  if (section.hidden) return
  const bench = book.benchmark.code
  $('book-basis').textContent = tr('tr.book_basis', {
    depth: book.depth,
    from: book.from,
    to: book.to,
    days: book.days.length,
    commission: pct(book.costs.commission, 3),
    spread: pct(book.costs.halfSpread, 2),
    cap: pct(book.costs.advCap, 0),
    impact: book.costs.impact,
    universe: tr('tr.book_universe'),
  })
  const bookEl = $('chart-book')
  bookEl.dataset.xLabel = tr('tr.book_x_axis')
  const line = (label, stroke) => ({ label, stroke, width: 2, points: { show: false }, value: (_u, v) => num(v, 4) })
  charts.push(
    new uPlot(
      {
        width: width(bookEl),
        height: 280,
        scales: { x: { time: false } },
        series: [
          dateSeries(),
          line(tr('tr.book_curve'), '#d0021b'),
          line(tr('tr.book_curve_bench', { bench }), '#8a94a3'),
        ],
        axes: [
          {
            label: tr('tr.book_x_axis'),
            incrs: DAY_STEPS,
            values: (_u, ticks) => ticks.map((t) => dateOf(t).slice(5)),
          },
          { label: tr('tr.y_growth'), size: 64, values: (_u, ticks) => ticks.map((t) => t.toFixed(3)) },
        ],
      },
      [
        book.days.map((d) => dayTs(d.date)),
        book.days.map((d) => d.cum_net_excess),
        book.days.map((d) => d.cum_net_excess_benchmark),
      ],
      bookEl,
    ),
  )
  const headline = book.sizes.find((x) => x.size === book.headline_size) ?? book.sizes[0]
  $('book-figures-title').textContent = tr('tr.book_figures', { size: millions(headline.size) })
  const u = headline.universe
  const b = headline.benchmark
  const worst = (f) => (f.worst_month ? `${f.worst_month.period} ${pct(f.worst_month.excess)}` : '–')
  table(
    $('table-book'),
    ['', tr('tr.book_vs_universe'), tr('tr.book_vs_bench', { bench })],
    [
      [{ text: tr('tr.book_gross') }, meanT(u.gross_excess), meanT(b.gross_excess)],
      [{ text: tr('tr.book_net') }, meanT(u.net_excess), meanT(b.net_excess)],
      [
        { text: tr('tr.book_ir') },
        { text: num(u.net_ir, 2), cls: signClass(u.net_ir) },
        { text: num(b.net_ir, 2), cls: signClass(b.net_ir) },
      ],
      [
        { text: tr('tr.book_cum') },
        { text: pct(u.cumulative_net_excess), cls: signClass(u.cumulative_net_excess) },
        { text: pct(b.cumulative_net_excess), cls: signClass(b.cumulative_net_excess) },
      ],
      [{ text: tr('tr.book_dd') }, { text: pct(u.max_drawdown) }, { text: pct(b.max_drawdown) }],
      [{ text: tr('tr.book_worst') }, { text: worst(u) }, { text: worst(b) }],
    ],
  )
  table(
    $('table-capacity'),
    [tr('tr.book_size'), tr('tr.book_net'), tr('tr.book_ir'), tr('tr.book_turnover'), tr('tr.book_drag')],
    book.sizes.map((x) => [
      { text: millions(x.size) },
      meanT(x.universe.net_excess),
      { text: num(x.universe.net_ir, 2), cls: signClass(x.universe.net_ir) },
      { text: pct(x.turnover, 1) },
      { text: pct(x.cost_drag) },
    ]),
  )
  const z = book.exposures.mean_z
  const sep = i18n.lang === 'zh' ? '、' : ', '
  $('book-exposures').textContent = tr('tr.book_exposures', {
    size: num(z.size, 2),
    beta: num(z.beta, 2),
    vol: num(z.volatility, 2),
    rev: num(z.reversal, 2),
    industries:
      book.exposures.industries
        .slice(0, 5)
        .map((i) => `${i.industry} ${pct(i.book, 0)} / ${pct(i.universe, 0)}`)
        .join(sep) || '–',
  })
  drawEdge(book)
}

/** What the headline size's excess is made of, and its net figures under other costs (issue 47). */
function drawEdge(book) {
  const size = millions(book.headline_size)
  const a = book.attribution
  const g = a.gross
  const n = a.net
  const loading = (f, name) => {
    const l = f?.loadings.find((x) => x.name === name)
    return l ? { text: `${num(l.beta, 2)} (${num(l.t, 2)})` } : { text: '–' }
  }
  const alpha = (f) =>
    f ? { text: `${pct(f.alpha, 3)} (${num(f.alpha_t, 2)})`, cls: signClass(f.alpha) } : { text: '–' }
  const d = a.deflated_sharpe
  $('book-edge-title').textContent = tr('tr.book_edge', { size })
  table(
    $('table-edge'),
    ['', tr('tr.book_gross_col'), tr('tr.book_net_col')],
    [
      [{ text: tr('tr.book_alpha') }, alpha(g), alpha(n)],
      [{ text: tr('tr.book_size_loading') }, loading(g, 'size'), loading(n, 'size')],
      [{ text: tr('tr.book_reversal_loading') }, loading(g, 'reversal'), loading(n, 'reversal')],
      [{ text: 'R²' }, { text: num(g?.r2, 2) }, { text: num(n?.r2, 2) }],
      [{ text: tr('tr.book_matched') }, meanT(a.matched.gross), meanT(a.matched.net)],
      [
        { text: tr('tr.book_dsr', { attempts: d ? d.attempts : '–' }) },
        { text: '' },
        { text: d ? num(d.probability, 2) : '–' },
      ],
    ],
  )
  $('book-edge-note').textContent = tr('tr.book_edge_note', {
    days: a.days,
    ir: d ? num(d.net_ir, 2) : '–',
    lucky: d ? num(d.lucky_best_ir, 2) : '–',
    attempts: d ? d.attempts : '–',
  })
  $('book-costs-title').textContent = tr('tr.book_costs', { size })
  table(
    $('table-costs'),
    [
      tr('tr.book_impact'),
      tr('tr.book_cap'),
      tr('tr.book_net'),
      tr('tr.book_ir'),
      tr('tr.book_turnover'),
      tr('tr.book_drag'),
    ],
    book.cost_sensitivity.map((c) => [
      { text: String(c.impact) },
      { text: pct(c.adv_cap, 0) },
      meanT(c.net_excess),
      { text: num(c.net_ir, 2), cls: signClass(c.net_ir) },
      { text: pct(c.turnover, 1) },
      { text: pct(c.cost_drag) },
    ]),
  )
}

function draw() {
  for (const c of charts.splice(0)) c.destroy()
  drawBook(report?.book)
  if (!report) return
  const h = report.horizon
  const days = report.portfolio.days
  $('empty').hidden = report.days > 0
  const ic = report.ic.score
  $('summary').replaceChildren(
    fact(tr('tr.plan_days'), String(report.days)),
    fact(tr('tr.mean_ic'), num(ic.mean), signClass(ic.mean)),
    fact(tr('tr.t', { lags: Math.max(0, h - 1) }), num(ic.t, 2)),
    fact(tr('tr.icir'), num(ic.icir, 2)),
    fact(
      tr('tr.top_bottom'),
      pct(report.quintiles.top_minus_bottom.mean),
      signClass(report.quintiles.top_minus_bottom.mean),
    ),
    fact(tr('tr.cum_excess'), pct(report.portfolio.cum_excess), signClass(report.portfolio.cum_excess)),
    fact(tr('tr.max_dd'), pct(report.portfolio.max_drawdown)),
    fact(tr('tr.ir'), num(report.portfolio.ir, 2)),
    fact(tr('tr.turnover'), pct(report.portfolio.mean_turnover, 0)),
  )
  const sep = i18n.lang === 'zh' ? '、' : ', '
  const untradable = Object.entries(report.untradable)
    .map(([k, n]) => `${term('untradable', k)} ${n}`)
    .join(sep)
  $('basis').textContent = tr('tr.basis', {
    from: report.from ?? '–',
    to: report.to ?? '–',
    h,
    bench: report.benchmark,
    rows: report.rows,
    untradable: untradable ? tr('tr.untradable', { list: untradable }) : '',
    commission: pct(report.portfolio.costs.commission, 3),
  })
  const overlap = $('overlap')
  overlap.hidden = !(h > 1 && report.days > 0)
  overlap.textContent = overlap.hidden
    ? ''
    : tr('tr.overlap', { h, shared: h - 1, days: report.days, independent: Math.max(1, Math.floor(report.days / h)) })
  $('equity-note').textContent = tr('tr.equity_note', {
    h,
    invested: report.portfolio.invested_days,
    days: report.days,
  })
  $('weights-section').hidden = !Array.isArray(report.weights) || report.weights.length === 0
  if (report.days === 0) return

  const xs = days.map((d) => dayTs(d.date))
  // uPlot draws axis labels on the canvas: the label is kept on the element too, for readers and tests
  for (const id of ['chart-equity', 'chart-ic']) $(id).dataset.xLabel = dateAxis(h).label
  const line = (label, stroke) => ({ label, stroke, width: 2, points: { show: false }, value: (_u, v) => num(v, 4) })
  const equityEl = $('chart-equity')
  charts.push(
    new uPlot(
      {
        width: width(equityEl),
        height: 280,
        scales: { x: { time: false } },
        series: [
          dateSeries(),
          line(tr('tr.main'), '#d0021b'),
          line(tr('tr.bench'), '#8a94a3'),
          line(tr('tr.excess'), '#1f5fbf'),
        ],
        axes: [
          dateAxis(h),
          { label: tr('tr.y_growth'), size: 64, values: (_u, ticks) => ticks.map((t) => t.toFixed(3)) },
        ],
      },
      [xs, days.map((d) => d.cum_main), days.map((d) => d.cum_bench), days.map((d) => d.cum_excess)],
      equityEl,
    ),
  )

  const daily = report.ic.daily
  const icEl = $('chart-ic')
  const icValues = daily.map((d) => d.score)
  charts.push(
    new uPlot(
      {
        width: width(icEl),
        height: 260,
        scales: { x: { time: false } },
        series: [
          dateSeries(),
          {
            label: tr('tr.ic'),
            stroke: '#1f5fbf',
            fill: 'rgba(31,95,191,0.45)',
            paths: uPlot.paths.bars({ size: [0.7, 12] }),
            points: { show: false },
            value: (_u, v) => num(v),
          },
          { label: tr('tr.ic10'), stroke: '#b26a00', width: 2, value: (_u, v) => num(v) },
        ],
        axes: [dateAxis(h), { label: tr('tr.y_ic'), size: 64, values: (_u, ticks) => ticks.map((t) => t.toFixed(2)) }],
      },
      [daily.map((d) => dayTs(d.date)), icValues, rolling(icValues, 10)],
      icEl,
    ),
  )

  if (!$('weights-section').hidden) {
    const weightsEl = $('chart-weights')
    const names = [...new Set(report.weights.flatMap((w) => Object.keys(w.weights ?? {})))]
    const palette = ['#d0021b', '#1f5fbf', '#0a8a3a', '#b26a00', '#7b3fb2', '#008b8b', '#5f6b7a', '#c2185b']
    charts.push(
      new uPlot(
        {
          width: width(weightsEl),
          height: 260,
          scales: { x: { time: false } },
          series: [
            dateSeries(),
            ...names.map((name, i) => ({
              label: signalWord(name),
              stroke: palette[i % palette.length],
              width: 1.5,
              dash: i >= palette.length ? [6, 3] : undefined,
              points: { show: false },
              value: (_u, v) => num(v, 3),
            })),
          ],
          axes: [
            { incrs: DAY_STEPS, values: (_u, ticks) => ticks.map((t) => dateOf(t).slice(5)) },
            { label: tr('tr.y_weight'), size: 56, values: (_u, ticks) => ticks.map((t) => t.toFixed(2)) },
          ],
        },
        [
          report.weights.map((w) => dayTs(w.date)),
          ...names.map((name) => report.weights.map((w) => (isNum(w.weights?.[name]) ? w.weights[name] : null))),
        ],
        weightsEl,
      ),
    )
    weightsEl.dataset.signals = String(names.length)
  }
  labelWeights(report.weights ?? [])

  const qEl = $('chart-quintiles')
  charts.push(
    new uPlot(
      {
        width: width(qEl),
        height: 220,
        // bars start at zero, so their lengths compare honestly
        scales: {
          x: { time: false, range: [0.5, 5.5] },
          y: { range: (_u, min, max) => [Math.min(0, min), Math.max(0, max) * 1.1 || 0.001] },
        },
        series: [
          { label: tr('tr.quintile'), value: (_u, v) => (v === null ? '–' : `Q${v}`) },
          {
            label: tr('tr.mean_return'),
            stroke: '#1f5fbf',
            fill: 'rgba(31,95,191,0.45)',
            paths: uPlot.paths.bars({ size: [0.6, 80] }),
            points: { show: false },
            value: (_u, v) => pct(v, 3),
          },
        ],
        axes: [
          { values: (_u, ticks) => ticks.map((t) => (Number.isInteger(t) ? `Q${t}` : '')) },
          { label: tr('tr.y_return'), size: 64, values: (_u, ticks) => ticks.map((t) => (t * 100).toFixed(2)) },
        ],
      },
      [[1, 2, 3, 4, 5], report.quintiles.mean_ret],
      qEl,
    ),
  )

  table(
    $('table-components'),
    [tr('tr.signal'), tr('tr.mean_ic'), tr('tr.icir'), 't', tr('tr.days')],
    [['score', report.ic.score], ...Object.entries(report.ic.components)].map(([name, s]) => [
      { text: name === 'score' ? tr('tr.score') : signalWord(name) },
      { text: num(s.mean), cls: signClass(s.mean) },
      { text: num(s.icir, 2) },
      { text: num(s.t, 2) },
      { text: String(s.n) },
    ]),
  )
  const none = (word) => (key) => (key === '(none)' ? tr('tr.none') : word(key))
  groupTable(
    $('table-decision'),
    report.groups.decision,
    none((k) => term('decision', k)),
  )
  groupTable(
    $('table-logic'),
    report.groups.logic_state,
    none((k) => term('state', k)),
  )
  groupTable(
    $('table-regime'),
    report.groups.regime,
    none((k) => term('regime', k)),
  )
  groupTable(
    $('table-theme'),
    report.groups.theme,
    none((k) => k),
    10,
  )
}

async function load() {
  const params = new URLSearchParams({ horizon: $('horizon').value })
  if ($('from').value) params.set('from', $('from').value)
  if ($('to').value) params.set('to', $('to').value)
  history.replaceState(null, '', `?${params}`)
  $('error').hidden = true
  document.body.dataset.state = 'loading'
  try {
    const res = await fetch(`/plan/track_record?${params}`)
    const body = await res.json()
    if (!res.ok) throw new Error(body.detail ?? `HTTP ${res.status}`)
    report = body
    draw()
    document.body.dataset.state = 'ready'
  } catch (err) {
    report = null
    draw()
    $('error').textContent = tr('tr.error', { error: err.message })
    $('error').hidden = false
    document.body.dataset.state = 'error'
  }
}

function setLanguage(lang) {
  i18n = translator(lang)
  safeStorage(lang)
  applyLanguage()
  draw()
  if (!$('error').hidden && document.body.dataset.state === 'error') load()
  const notice = $('notice')
  if (notice.dataset.wanted)
    notice.textContent = tr('tr.horizon_bad', { wanted: notice.dataset.wanted, shown: DEFAULT_HORIZON })
}

i18n = translator(pickLanguage(safeStorage(), navigator.languages ?? [navigator.language]))
applyLanguage()
const initial = new URLSearchParams(location.search)
const wanted = initial.get('horizon')
if (wanted !== null && !HORIZONS.includes(wanted)) {
  // an unknown horizon is said, and the default one shown (the select cannot show a value it does not offer)
  const notice = $('notice')
  notice.dataset.wanted = wanted
  notice.textContent = tr('tr.horizon_bad', { wanted, shown: DEFAULT_HORIZON })
  notice.hidden = false
} else if (wanted) $('horizon').value = wanted
for (const key of ['from', 'to']) if (initial.get(key)) $(key).value = initial.get(key)
$('query').addEventListener('submit', (e) => {
  e.preventDefault()
  $('notice').hidden = true
  delete $('notice').dataset.wanted
  load()
})
$('lang-switch').addEventListener('click', () => setLanguage(i18n.lang === 'zh' ? 'en' : 'zh'))
load()
