// The plan viewer's entry: reads the JSON endpoints and wires the panels, each built with text nodes only (never
// innerHTML): the summary, the plan tables with their filters, export and changes, the lookup and the stock panel.

import { renderChanges } from '/changes.js'
import { $, el, getJson, isRealDate } from '/dom.js'
import { pickLanguage, translator } from '/i18n.js'
import { lookup, renderExamples, renderLookup } from '/lookup.js'
import { applyLanguage, renderGlossary, renderMessages } from '/page-text.js'
import { readPlan } from '/plan-loader.js'
import { renderMarket, renderRegime, renderSegments, renderStatus, renderWatch } from '/plan-summary.js'
import { renderPlanList } from '/plan-tables.js'
import { state, tr } from '/state.js'
import { closeStock, openStock, renderStock } from '/stock-panel.js'

const LANG_KEY = 'stockplan.viewer.lang'

function renderPlan() {
  const plan = state.plan
  if (!plan) return
  renderStatus(plan)
  renderRegime(plan.regime)
  renderMarket(plan.market)
  const main = plan.main ?? []
  const observe = plan.observe ?? []
  $('main-count').textContent = `(${main.length})`
  $('observe-count').textContent = `(${observe.length})`
  for (const list of ['main', 'observe']) renderPlanList(list)
  renderChanges()
  renderGlossary()
  renderSegments(plan.segments_pointed ?? [])
  renderWatch(plan.watch ?? [], plan)
  renderExamples(plan)
}

let planRequest = 0

/** The plan, its rows' facts (fundamentals, yesterday's rank) and the previous plan, read together. */
async function loadPlan(date) {
  const request = ++planRequest
  document.body.setAttribute('aria-busy', 'true')
  // a lookup on screen belongs to the date it was made for: redo it for the new date
  if (state.lookup.codes.length > 0 && state.lookup.date !== date) lookup(state.lookup.codes.join(', '), date)
  if (state.stock.code && state.stock.date !== date) openStock(state.stock.code, date, { scroll: false })
  try {
    const { plan, previous, facts } = await readPlan(date, state.dates[state.dates.indexOf(date) + 1])
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
  state.i18n = translator(pickLanguage(savedLanguage(), navigator.languages ?? [navigator.language]))
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

/** The saved language, or null when storage is unavailable (private mode). */
function savedLanguage() {
  try {
    return localStorage.getItem(LANG_KEY)
  } catch {
    return null
  }
}

init()
