// The CSV export of a plan table: the rows on screen, in that order, with the headings of the page's language.
import { el } from '/dom.js'
import { EXPORTED } from '/plan-columns.js'
import { visibleRows } from '/plan-filters.js'
import { state, tr } from '/state.js'
import { csvText } from '/table.js'

export function exportCsv(list) {
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
