// The page's own words in its language (headings, labels, the glossary) and its notice and error lines.
import { $, el } from '/dom.js'
import { COMPONENTS, planPerSignal } from '/score-words.js'
import { state, term, tr } from '/state.js'

export function applyLanguage() {
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
export function renderGlossary() {
  const parts = planPerSignal()
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

/** The date notice and the error line. */
export function renderMessages() {
  const notice = $('date-notice')
  notice.textContent = state.notice ? tr(state.notice.key, state.notice.params) : ''
  notice.hidden = !state.notice
  const box = $('error')
  box.textContent = state.error ? tr(state.error.key, state.error.params) : ''
  box.hidden = !state.error
}
