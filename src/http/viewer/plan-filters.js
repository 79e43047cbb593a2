// The filter and sort of each plan table: the controls above it, a heading's sort, and the rows they leave.
import { $, el } from '/dom.js'
import { PLAN_COLUMNS, SORTABLE } from '/plan-columns.js'
import { factsOf, state, term, tr } from '/state.js'
import { matchesFilter, sortRows } from '/table.js'

/** The rows of a list as on screen: filtered, then sorted. */
export function visibleRows(list) {
  const all = state.plan?.[list] ?? []
  const view = state.views[list]
  const shown = all.filter((r) =>
    matchesFilter([r.code, r.name, r.theme, r.segment, factsOf(r)?.industry, term('track', r.track)], view.filter),
  )
  const column = SORTABLE.find((c) => c.key === view.sort)
  return sortRows(shown, column ? (r) => column.value(r, list) : null, view.dir)
}

/** A heading's click: sort by that column, and again to reverse (numbers start from the largest). */
export function sortBy(list, key) {
  const view = state.views[list]
  if (view.sort === key) view.dir = view.dir === 'asc' ? 'desc' : 'asc'
  else {
    view.sort = key
    view.dir = PLAN_COLUMNS.find((c) => c.key === key)?.numeric ? 'desc' : 'asc'
  }
}

/**
 * Filter, sort and export controls above a plan table (their words follow the language). `onChange(toolsToo)`
 * redraws the table (and these controls when the sort direction's arrow changed); `onExport` writes the CSV.
 */
export function renderTools(list, { onChange, onExport }) {
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
    onChange(false)
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
    onChange(false)
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
    onChange(true)
  })
  const csv = el('button', { type: 'button', class: 'table-csv ghost', title: tr('table.csv.tip') }, tr('table.csv'))
  csv.addEventListener('click', onExport)
  box.replaceChildren(
    el('label', { class: 'tool' }, el('span', null, tr('table.filter')), filter),
    el('label', { class: 'tool' }, el('span', null, tr('table.sort')), sort),
    dir,
    csv,
    el('span', { class: 'muted shown-count', id: `${list}-shown` }),
  )
}
