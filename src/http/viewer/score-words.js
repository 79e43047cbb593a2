// A row's score, logic state and flags in words and badges: shared by the plan tables, the lookup card and the
// stock panel.

import { el, isNum, num } from '/dom.js'
import { tierRuleWords } from '/rules.js'
import { listSep, state, term, tr } from '/state.js'

/** The six components of a PLAN_VERSION 2 score. */
export const COMPONENTS = ['momentum', 'trend', 'heat', 'upside', 'liquidity', 'quality']
/** Points each component of a PLAN_VERSION 2 row could reach (that version's BUILD_RULES.points). */
const COMPONENT_MAX = { momentum: 15, trend: 10, heat: 35, upside: 20, liquidity: 10, quality: 10 }

/** Whether the plan on screen scores per signal (PLAN_VERSION 3 and later). */
export function planPerSignal() {
  const version = Number.parseInt(state.plan?.plan_version ?? '', 10)
  return Number.isFinite(version) && version >= 3
}

/** Whether points are per signal (PLAN_VERSION 3: no fixed maxima) rather than the six components of version 2. */
function perSignal(points) {
  return planPerSignal() || Object.keys(points).some((k) => !COMPONENTS.includes(k))
}

/**
 * The parts of a row's score: its points per signal (`contributions`, or `components` keyed by signal in
 * PLAN_VERSION 3), or the six components of version 2 with their maxima; null when the row has none.
 */
export function scoreParts(row) {
  const given = [row.contributions, row.components].find((p) => p && typeof p === 'object' && Object.keys(p).length > 0)
  if (!given) return null
  if (perSignal(given))
    return Object.entries(given)
      .filter(([, v]) => isNum(v))
      .map(([k, v]) => ({ key: k, name: term('signal_name', k), tip: term('signalTip', k), points: v, max: null }))
  return COMPONENTS.filter((k) => isNum(given[k])).map((k) => ({
    key: k,
    name: term('component', k),
    tip: term('componentTip', k),
    points: given[k],
    max: COMPONENT_MAX[k],
  }))
}

const partText = (p) =>
  p.max === null ? `${p.name} ${p.points >= 0 ? '+' : ''}${num(p.points)}` : `${p.name} ${num(p.points)}/${p.max}`

export function componentsTip(row) {
  const parts = scoreParts(row)
  return parts ? parts.map(partText).join(' + ') : null
}

/** Why the row has its tier, and which parts of its score hold it back, in words. */
export function whyLines(row) {
  const lines = []
  if (row.tier_rule) lines.push(tr('why.tier', { rule: tierRuleWords(tr, row.tier_rule) }))
  const parts = scoreParts(row)
  if (parts && parts.length > 0) {
    const sep = listSep()
    if (parts[0].max === null) {
      const sorted = [...parts].sort((a, b) => b.points - a.points)
      const pulls = sorted.filter((p) => p.points > 0).slice(0, 2)
      const drags = sorted
        .filter((p) => p.points < 0)
        .slice(-2)
        .reverse()
      const list = (ps) => (ps.length === 0 ? tr('changes.none') : ps.map(partText).join(sep))
      lines.push(tr('why.contributions', { up: list(pulls), down: list(drags) }))
    } else {
      const weakest = [...parts].sort((a, b) => a.points / a.max - b.points / b.max).slice(0, 2)
      lines.push(tr('why.weakest', { parts: weakest.map(partText).join(sep) }))
    }
  }
  return lines
}

export function logicBadge(stateName, days) {
  if (!stateName) return null
  return el(
    'span',
    { class: `badge logic logic-${stateName}`, title: term('stateTip', stateName), 'data-state': stateName },
    term('state', stateName),
    isNum(days) && days > 0 ? ` · ${tr('days', { n: days })}` : '',
  )
}

export function flagBadges(flags) {
  if (!Array.isArray(flags)) return []
  return flags.map((f) =>
    el('span', { class: `badge flag flag-${f}`, title: term('flagTip', f), 'data-flag': f }, term('flag', f)),
  )
}

/** The verdict cell in words, as its badges read (for the CSV export). */
export function verdictWords(row) {
  const words = []
  if (row.logic_state)
    words.push(
      `${term('state', row.logic_state)}${isNum(row.logic_days) && row.logic_days > 0 ? ` · ${tr('days', { n: row.logic_days })}` : ''}`,
    )
  for (const f of Array.isArray(row.flags) ? row.flags : []) words.push(term('flag', f))
  return words.join(' · ')
}
