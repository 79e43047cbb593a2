// What the page shows, shared by its panels, and the words of its language.
import { translator } from '/i18n.js'

export const state = {
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

export const tr = (key, params) => state.i18n.t(key, params)
export const term = (group, key) => state.i18n.term(group, key)
/** The list separator of the page's language. */
export const listSep = () => (state.i18n.lang === 'zh' ? '、' : ', ')

export const factsOf = (row) => state.facts.get(row.code) ?? null
export const fundamentalsOf = (row) => factsOf(row)?.fundamentals ?? null
