// The stock panel: one code's candles, volume and moving averages for the date shown (GET /stock/{code}), its
// fundamentals and the days its logic state changed.

import { $, el, getJson, marketValue, num, text, volumeText } from '/dom.js'
import { logicRuleWords } from '/rules.js'
import { logicBadge } from '/score-words.js'
import { state, term, tr } from '/state.js'
import { drawStockChart } from '/stock-chart.js'

let stockRequest = 0
let stockChart = null

const volume = (v) => volumeText(v, state.i18n.lang)

/** A button that opens the stock panel: the code itself in a table row, the word "chart" on a lookup card. */
export function chartButton(code, label = tr('col.chart')) {
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

export function renderStock() {
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
      })} · ${tr('stock.volume')} ${volume(b.volume)}`
    }
    stockChart = drawStockChart($('stock-chart'), data, { t: tr, volumeText: volume, onCursor: ohlc })
    ohlc(data.bars.length - 1)
  }
  const f = data.fundamentals
  const lang = state.i18n.lang
  facts.textContent = f
    ? tr('stock.fundamentals', {
        mv: marketValue(f.total_mv, lang),
        circ: marketValue(f.circ_mv, lang),
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

export async function openStock(code, date = $('date-picker').value, { scroll = true } = {}) {
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

export function closeStock() {
  stockRequest++
  state.stock = { code: null }
  renderStock()
}
