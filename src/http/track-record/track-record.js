/* Track record page: fetches /plan/track_record and draws it with uPlot (window.uPlot, served from the package). */
const $ = (id) => document.getElementById(id)
const pct = (v, d = 2) => (v === null || v === undefined ? '–' : `${(v * 100).toFixed(d)}%`)
const num = (v, d = 3) => (v === null || v === undefined ? '–' : v.toFixed(d))
const signClass = (v) => (v === null || v === undefined ? '' : v > 0 ? 'pos' : v < 0 ? 'neg' : '')
const dayTs = (iso) => Date.parse(`${iso}T00:00:00Z`) / 1000
const charts = []

function cell(text, cls) {
  const td = document.createElement('td')
  td.textContent = text
  if (cls) td.className = cls
  return td
}

function table(el, head, rows) {
  el.replaceChildren()
  const tr = document.createElement('tr')
  for (const h of head) {
    const th = document.createElement('th')
    th.textContent = h
    tr.append(th)
  }
  el.append(tr)
  for (const r of rows) {
    const row = document.createElement('tr')
    for (const c of r) row.append(cell(c.text, c.cls))
    el.append(row)
  }
}

function groupTable(el, groups, limit) {
  table(
    el,
    ['group', 'count', 'mean excess', 'hit rate', 't'],
    groups
      .slice(0, limit)
      .map((g) => [
        { text: g.key },
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
  return Math.max(320, el.clientWidth || 600)
}

function rolling(values, n) {
  return values.map((_, i) => {
    const window = values.slice(Math.max(0, i - n + 1), i + 1).filter((v) => v !== null)
    return window.length ? window.reduce((a, b) => a + b, 0) / window.length : null
  })
}

function draw(report) {
  for (const c of charts.splice(0)) c.destroy()
  const days = report.portfolio.days
  $('empty').hidden = report.days > 0
  const ic = report.ic.score
  $('summary').replaceChildren(
    fact('Plan days', String(report.days)),
    fact('Mean rank IC', num(ic.mean), signClass(ic.mean)),
    fact(`t (Hansen-Hodrick, ${Math.max(0, report.horizon - 1)} lags)`, num(ic.t, 2)),
    fact('ICIR', num(ic.icir, 2)),
    fact(
      'Top − bottom quintile',
      pct(report.quintiles.top_minus_bottom.mean),
      signClass(report.quintiles.top_minus_bottom.mean),
    ),
    fact('Cum. excess of main', pct(report.portfolio.cum_excess), signClass(report.portfolio.cum_excess)),
    fact('Max drawdown', pct(report.portfolio.max_drawdown)),
    fact('Information ratio', num(report.portfolio.ir, 2)),
    fact('Turnover / day', pct(report.portfolio.mean_turnover, 0)),
  )
  const untradable = Object.entries(report.untradable)
    .map(([k, n]) => `${n} ${k.replaceAll('_', ' ')}`)
    .join(', ')
  $('basis').textContent =
    `${report.from ?? '–'} .. ${report.to ?? '–'}, horizon ${report.horizon} trading days (buy at the T+1 open, sell at the T+${report.horizon} close), ` +
    `benchmark ${report.benchmark}; ${report.rows} published rows${untradable ? `, left out as untradable: ${untradable}` : ''}. ` +
    `Costs: commission ${pct(report.portfolio.costs.commission, 3)} a side plus sell-side stamp duty by date.`
  $('equity-note').textContent =
    `${report.portfolio.invested_days} of ${report.days} plan days had tradable main names; the others hold nothing and leave the curves flat.`
  if (report.days === 0) return

  const xs = days.map((d) => dayTs(d.date))
  const equityEl = $('chart-equity')
  charts.push(
    new uPlot(
      {
        width: width(equityEl),
        height: 280,
        series: [
          {},
          {
            label: 'main (after costs)',
            stroke: '#1f5fbf',
            width: 2,
            points: { show: false },
            value: (_u, v) => num(v, 4),
          },
          { label: 'benchmark', stroke: '#8a94a3', width: 2, points: { show: false }, value: (_u, v) => num(v, 4) },
          {
            label: 'excess (main − benchmark)',
            stroke: '#1b7f3b',
            width: 2,
            points: { show: false },
            value: (_u, v) => num(v, 4),
          },
        ],
        axes: [{}, { size: 64, values: (_u, ticks) => ticks.map((t) => t.toFixed(3)) }],
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
        series: [
          {},
          {
            label: 'rank IC',
            stroke: '#1f5fbf',
            fill: 'rgba(31,95,191,0.45)',
            paths: uPlot.paths.bars({ size: [0.7, 12] }),
            points: { show: false },
            value: (_u, v) => num(v),
          },
          { label: '10-day mean', stroke: '#b42318', width: 2, value: (_u, v) => num(v) },
        ],
        axes: [{}, { size: 64, values: (_u, ticks) => ticks.map((t) => t.toFixed(2)) }],
      },
      [daily.map((d) => dayTs(d.date)), icValues, rolling(icValues, 10)],
      icEl,
    ),
  )

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
          { label: 'quintile' },
          {
            label: 'mean return',
            stroke: '#1f5fbf',
            fill: 'rgba(31,95,191,0.45)',
            paths: uPlot.paths.bars({ size: [0.6, 80] }),
            points: { show: false },
            value: (_u, v) => pct(v, 3),
          },
        ],
        axes: [
          { values: (_u, ticks) => ticks.map((t) => (Number.isInteger(t) ? `Q${t}` : '')) },
          { size: 70, values: (_u, ticks) => ticks.map((t) => `${(t * 100).toFixed(2)}%`) },
        ],
      },
      [[1, 2, 3, 4, 5], report.quintiles.mean_ret],
      qEl,
    ),
  )

  table(
    $('table-components'),
    ['signal', 'mean IC', 'ICIR', 't', 'days'],
    [['score', report.ic.score], ...Object.entries(report.ic.components)].map(([name, s]) => [
      { text: name },
      { text: num(s.mean), cls: signClass(s.mean) },
      { text: num(s.icir, 2) },
      { text: num(s.t, 2) },
      { text: String(s.n) },
    ]),
  )
  groupTable($('table-decision'), report.groups.decision)
  groupTable($('table-logic'), report.groups.logic_state)
  groupTable($('table-regime'), report.groups.regime)
  groupTable($('table-theme'), report.groups.theme, 10)
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
    draw(body)
    document.body.dataset.state = 'ready'
  } catch (err) {
    $('error').textContent = `Could not load the track record: ${err.message}`
    $('error').hidden = false
    document.body.dataset.state = 'error'
  }
}

const initial = new URLSearchParams(location.search)
for (const key of ['horizon', 'from', 'to']) if (initial.get(key)) $(key).value = initial.get(key)
$('query').addEventListener('submit', (e) => {
  e.preventDefault()
  load()
})
load()
