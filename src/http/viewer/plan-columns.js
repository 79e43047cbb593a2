// The plan tables' columns (what each shows, sorts by and exports) and their headings.
import { changeOf, changeText } from '/changes.js'
import { el, marketValue, num, pct, signedPct, text } from '/dom.js'
import { verdictWords } from '/score-words.js'
import { factsOf, fundamentalsOf, state, tr } from '/state.js'

/**
 * The plan tables' columns: the heading key, the cell class, whether it is a number, the value it sorts by and
 * the text it shows (and exports). The first holds the row's ▸ button, never sorted or exported; the verdict's
 * badges export as words.
 */
export const PLAN_COLUMNS = [
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
    show: (r) => marketValue(fundamentalsOf(r)?.total_mv, state.i18n.lang),
  },
  {
    key: 'col.circ_mv',
    cls: 'circ-mv',
    numeric: true,
    value: (r) => fundamentalsOf(r)?.circ_mv ?? null,
    show: (r) => marketValue(fundamentalsOf(r)?.circ_mv, state.i18n.lang),
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
export const SORTABLE = PLAN_COLUMNS.filter((c) => c.value)
export const EXPORTED = PLAN_COLUMNS.filter((c) => c.show)

/** A column heading, with its tooltip when the vocabulary has one (`<key>.tip`). */
export function headCell(key, numeric) {
  if (!key) return el('th', { scope: 'col', class: 'toggle-cell' })
  const tip = state.i18n.t(`${key}.tip`)
  return el('th', { scope: 'col', class: numeric ? 'num' : null, title: tip === `${key}.tip` ? null : tip }, tr(key))
}

/** A table's head row of headings `keys`, those in `numeric` aligned as numbers. */
export function tableHead(keys, numeric) {
  return el('thead', null, el('tr', null, ...keys.map((k) => headCell(k, numeric.includes(k)))))
}
