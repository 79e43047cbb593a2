// The plan's main and observe tables: a row per code with its day-over-day change, and under each row its score
// parts, why it has its tier and its theme evidence.
import { changeCell } from '/changes.js'
import { $, amount, el, isNum, num, showEmpty, text, trendClass } from '/dom.js'
import { headCell, PLAN_COLUMNS, tableHead } from '/plan-columns.js'
import { exportCsv } from '/plan-export.js'
import { renderTools, sortBy, visibleRows } from '/plan-filters.js'
import { emptyWhy } from '/rules.js'
import { componentsTip, flagBadges, logicBadge, scoreParts, whyLines } from '/score-words.js'
import { listSep, state, term, tr } from '/state.js'
import { chartButton } from '/stock-panel.js'

/** A plan table with the filter, sort and export controls above it. */
export function renderPlanList(list) {
  redraw(list, true)
}

function redraw(list, toolsToo) {
  if (toolsToo) renderTools(list, { onChange: (tools) => redraw(list, tools), onExport: () => exportCsv(list) })
  renderPlanTable(list)
}

function edgesTable(edges) {
  const cells = (e) => [
    el('td', null, text(e.theme)),
    el('td', null, text(e.segment)),
    el('td', null, term('track', e.track)),
    el('td', { class: 'num', 'data-label': tr('col.weight') }, num(e.weight, 2)),
    el('td', { class: 'wrap' }, text(e.evidence)),
  ]
  const head = tableHead(['col.theme', 'col.segment', 'col.track', 'col.weight', 'col.evidence'], ['col.weight'])
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
    [tr('col.amount'), amount(row.amount, state.i18n.lang), null],
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
          parts: screens.map((k) => `${term('count', k)} ${counts[k]}`).join(listSep()),
        })
  // the build says why main is empty (PLAN_VERSION 3); the screening counts say what happened to the rest
  if (list === 'main' && typeof plan.main_empty === 'string' && plan.main_empty)
    return tr('empty.main.rule', { date: plan.date, why: emptyWhy(tr, plan.main_empty), screened })
  return tr(`empty.${list}.no_tier`, { date: plan.date, screened })
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
        button.addEventListener('click', () => {
          sortBy(list, c.key)
          redraw(list, true)
        })
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
