// The plan's summary panels: the status card, the market regime and its signals, the segments pointed at and
// the watch list.
import { $, amount, DASH, el, isNum, num, pct, shanghaiTime, showEmpty, text, weekday } from '/dom.js'
import { tableHead } from '/plan-columns.js'
import { state, term, tr } from '/state.js'

/** The session a plan is for: the next data date when known, else the next weekday (holidays unknown). */
function sessionOf(date) {
  const later = state.dates.filter((d) => d > date).sort()
  if (later.length > 0) return { date: later[0], known: true }
  const d = new Date(`${date}T00:00:00Z`)
  do d.setUTCDate(d.getUTCDate() + 1)
  while (d.getUTCDay() === 0 || d.getUTCDay() === 6)
  return { date: d.toISOString().slice(0, 10), known: false }
}

/** The status card: the session the plan is for, its facts and its codes by outcome. */
export function renderStatus(plan) {
  const session = sessionOf(plan.date)
  $('session-heading').textContent = tr('session.heading', {
    session: `${session.date} ${weekday(session.date, state.i18n.locale)}`,
  })
  $('session-heading').dataset.session = session.date
  $('session-note').textContent = tr(session.known ? 'session.known' : 'session.expected')
  $('plan-date').textContent = text(plan.date)
  $('snapshot').textContent = term('snapshot', plan.snapshot)
  $('snapshot').className = plan.snapshot === 'present' ? 'ok' : 'warn'
  $('plan-source').textContent = term('planSource', plan.plan_source)
  $('plan-source').className = plan.plan_source === 'snapshot' ? 'ok' : 'warn'
  const generated = $('generated-at')
  generated.textContent = shanghaiTime(plan.generated_at, tr('tz'))
  generated.setAttribute('datetime', text(plan.generated_at))
  $('plan-version').textContent = text(plan.plan_version)
  const counts = Object.entries(plan.card_counts ?? {})
  $('card-counts').replaceChildren(
    ...(counts.length === 0
      ? [DASH]
      : counts.map(([k, v]) =>
          el(
            'span',
            { class: 'chip', 'data-key': k, title: term('countTip', k) === k ? null : term('countTip', k) },
            `${countLabel(k)} `,
            el('b', null, text(v)),
          ),
        )),
  )
  const demoted = plan.card_counts?.weak_regime_demoted
  showEmpty('weak-note', isNum(demoted) && demoted > 0 ? tr('weak.demoted', { n: demoted }) : null)
}

/** card_counts keys (decisions, screening drops, selection reasons, the weak-market shift) as words. */
function countLabel(key) {
  return term('count', key)
}

const MARKET_ITEMS = {
  breadth: (m) => [
    ['up_down_flat', `${text(m.up)} / ${text(m.down)} / ${text(m.flat)}`],
    ['up_ratio', pct(m.up_ratio)],
  ],
  limits: (m) => [
    ['limit_up', text(m.limit_up)],
    ['limit_down', text(m.limit_down)],
  ],
  turnover: (m, lang) => [
    ['amount', amount(m.amount, lang)],
    ['ma20', amount(m.ma20, lang)],
    ['ratio', num(m.ratio, 2)],
  ],
  trend: (m) => [
    ['index', text(m.index)],
    ['close_ma20', `${num(m.close)} / ${num(m.ma20)}`],
    ['above_ma20', pct(m.pct_above_ma20)],
  ],
}

export function renderMarket(market) {
  const box = $('market')
  const names = Object.keys(market ?? {})
  if (names.length === 0) {
    box.replaceChildren(el('p', { class: 'empty-reason' }, tr('regime.no_market')))
    return
  }
  box.replaceChildren(
    ...names.map((name) => {
      const item = market[name] ?? {}
      const lines = MARKET_ITEMS[name]
        ? MARKET_ITEMS[name](item, state.i18n.lang).map(([k, v]) => [term('market', k), v])
        : Object.entries(item)
            .filter(([k]) => k !== 'signal')
            .map(([k, v]) => [k, typeof v === 'object' ? JSON.stringify(v) : text(v)])
      return el(
        'div',
        { class: 'market-item', 'data-item': name },
        el(
          'h3',
          null,
          term('market', name),
          ' ',
          el('span', { class: `badge signal-${text(item.signal)}` }, term('signal', item.signal)),
        ),
        el('dl', null, ...lines.map(([k, v]) => el('div', null, el('dt', null, k), el('dd', null, v)))),
      )
    }),
  )
}

export function renderRegime(regime) {
  const status = $('regime-status')
  status.textContent = term('regime', regime?.status)
  status.dataset.status = text(regime?.status)
  status.className = `badge regime-${text(regime?.status)}`
  $('regime-weak').textContent =
    regime?.weak_day === null || regime?.weak_day === undefined ? tr('n/a') : regime.weak_day ? tr('yes') : tr('no')
  $('regime-source').textContent = regimeSource(regime?.source)
}

/** The regime's source line in Chinese when it is the snapshot's count of signals. */
function regimeSource(source) {
  const m = /^snapshot (\d{4}-\d{2}-\d{2}): (\d+) items? positive, (\d+) negative$/.exec(source ?? '')
  if (state.i18n.lang !== 'zh' || !m) return text(source)
  return `${m[1]} 快照：${m[2]} 项偏多，${m[3]} 项偏空`
}

export function renderSegments(segments) {
  showEmpty('segments-empty', segments.length === 0 ? tr('empty.segments') : null)
  $('segments-table').hidden = segments.length === 0
  const head = tableHead(['col.theme', 'col.segment', 'col.count', 'col.heat', 'col.codes'], ['col.count', 'col.heat'])
  const body = el(
    'tbody',
    null,
    ...segments.map((s) =>
      el(
        'tr',
        null,
        el('td', null, text(s.theme)),
        el('td', null, text(s.segment)),
        el('td', { class: 'num' }, text(s.count)),
        el('td', { class: 'num', title: term('componentTip', 'heat') }, num(s.heat)),
        el('td', { class: 'wrap' }, Array.isArray(s.codes) ? s.codes.join(', ') : DASH),
      ),
    ),
  )
  $('segments-table').replaceChildren(head, body)
}

export function renderWatch(watch, plan) {
  const list = $('watch-list')
  const earliest = state.dates.length > 0 && plan.date === state.dates[state.dates.length - 1]
  showEmpty(
    'watch-empty',
    watch.length === 0 ? (earliest ? tr('empty.watch.first', { date: plan.date }) : tr('empty.watch.kept')) : null,
  )
  list.replaceChildren(
    ...watch.map((w) =>
      el(
        'li',
        { 'data-code': w.code },
        el('span', { class: 'code' }, text(w.code)),
        ' ',
        el('span', { class: 'name' }, text(w.name)),
        ' ',
        el('span', { class: 'badge reason', 'data-reason': w.reason, title: w.text }, term('reason', w.reason)),
      ),
    ),
  )
}
