// What changed since the previous plan date: per row (new to its list, market rank and score moves) and per list
// (names new to it and names that left it, with where they are now).
import { $, DASH, el, isNum, num, text, trendClass } from '/dom.js'
import { factsOf, state, term, tr } from '/state.js'
import { openStock } from '/stock-panel.js'

/** Against the previous plan: new to this list, and the change of market rank (positive: better) and score. */
export function changeOf(row, list) {
  const previous = state.previous
  if (!previous) return null
  const before = factsOf(row)?.previous ?? null
  const inList = (previous[list] ?? []).some((r) => r.code === row.code)
  return {
    isNew: !inList,
    rank: before ? before.rank - row.rank : null,
    score: before ? row.score - before.score : null,
    before,
  }
}

const rankMove = (rank) => (rank === 0 ? '=' : `${rank > 0 ? '▲' : '▼'}${Math.abs(rank)}`)
const scoreMove = (score) => `${score >= 0 ? '+' : ''}${score.toFixed(1)}`

/** The change cell as text: what the CSV export writes (the column sorts by the rank move). */
export function changeText(change) {
  if (!change) return ''
  const parts = []
  if (change.isNew) parts.push(tr('dod.new'))
  if (isNum(change.rank)) parts.push(rankMove(change.rank))
  if (isNum(change.score)) parts.push(scoreMove(change.score))
  return parts.join(' ')
}

export function changeCell(row, list) {
  const change = changeOf(row, list)
  const cell = el('td', { class: 'delta', 'data-label': tr('col.delta') })
  if (!change) return cell
  const date = state.previous.date
  if (change.isNew)
    cell.append(
      el('span', { class: 'badge new', 'data-new': 'true', title: tr('dod.new.tip', { date }) }, tr('dod.new')),
    )
  if (!change.before) {
    cell.title = tr('dod.unscored', { date })
    return cell
  }
  cell.dataset.rankDelta = String(change.rank)
  cell.dataset.scoreDelta = change.score.toFixed(1)
  cell.append(
    change.isNew ? ' ' : '',
    el(
      'span',
      {
        class: `rank-delta ${trendClass(change.rank)}`,
        title: tr('dod.rank.tip', { date, prev: change.before.rank, now: row.rank }),
      },
      rankMove(change.rank),
    ),
    ' ',
    el(
      'span',
      {
        class: `score-delta ${trendClass(change.score)}`,
        title: tr('dod.score.tip', { date, prev: num(change.before.score), now: num(row.score) }),
      },
      scoreMove(change.score),
    ),
  )
  return cell
}

/** What changed since the previous plan: names new to each list and names that left it, with where they are now. */
export function renderChanges() {
  const box = $('changes-body')
  const plan = state.plan
  const title = $('changes-title')
  const previous = state.previous
  if (!previous) {
    title.textContent = tr('changes.title', { date: DASH })
    box.replaceChildren(
      el(
        'p',
        { class: 'empty-reason' },
        state.previousError
          ? tr('changes.failed', { error: state.previousError })
          : tr('changes.first', { date: plan.date }),
      ),
    )
    return
  }
  title.textContent = tr('changes.title', { date: previous.date })
  const where = (code) => {
    if ((plan.main ?? []).some((r) => r.code === code)) return term('decision', 'main')
    if ((plan.observe ?? []).some((r) => r.code === code)) return term('decision', 'observe')
    const watched = (plan.watch ?? []).find((w) => w.code === code)
    return watched ? term('reason', watched.reason) : term('decision', 'reject')
  }
  const groups = []
  for (const list of ['main', 'observe']) {
    const now = plan[list] ?? []
    const before = previous[list] ?? []
    const nowCodes = new Set(now.map((r) => r.code))
    const beforeCodes = new Set(before.map((r) => r.code))
    groups.push([`changes.new_${list}`, `new-${list}`, now.filter((r) => !beforeCodes.has(r.code)), null])
    groups.push([`changes.gone_${list}`, `gone-${list}`, before.filter((r) => !nowCodes.has(r.code)), where])
  }
  box.replaceChildren(
    ...groups.map(([key, id, rows, now]) =>
      el(
        'div',
        { class: 'change-group', 'data-change': id },
        el('h3', null, tr(key), ' ', el('span', { class: 'count' }, `(${rows.length})`)),
        rows.length === 0
          ? el('p', { class: 'muted' }, tr('changes.none'))
          : el(
              'ul',
              { class: 'change-list' },
              ...rows.map((r) =>
                el(
                  'li',
                  { 'data-code': r.code },
                  el('button', { type: 'button', class: 'link code', 'data-code': r.code }, r.code),
                  ` ${text(r.name)}`,
                  now ? el('span', { class: 'muted' }, ` · ${tr('changes.now', { where: now(r.code) })}`) : '',
                ),
              ),
            ),
      ),
    ),
  )
  for (const button of box.querySelectorAll('button.code'))
    button.addEventListener('click', () => openStock(button.dataset.code))
}
