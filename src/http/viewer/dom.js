// The viewer's shared DOM and format helpers: elements built from text nodes only (never innerHTML), numbers,
// percentages, money and times as the page shows them, and the one way the page reads the JSON endpoints.

export const $ = (id) => document.getElementById(id)

/** An element with attributes and children; strings become text nodes, null/undefined children are skipped. */
export function el(tag, attrs, ...children) {
  const node = document.createElement(tag)
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === null || value === undefined || value === false) continue
    if (key === 'class') node.className = value
    else node.setAttribute(key, value === true ? '' : String(value))
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === '') continue
    node.append(typeof child === 'string' || typeof child === 'number' ? String(child) : child)
  }
  return node
}

/** A notice paragraph that shows `message`, or hides when there is none. */
export function showEmpty(id, message) {
  const node = $(id)
  node.textContent = message ?? ''
  node.hidden = !message
}

export const DASH = '–'
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/
const SHANGHAI = 'Asia/Shanghai'

export const isNum = (v) => typeof v === 'number' && Number.isFinite(v)
export const text = (v) => (v === null || v === undefined || v === '' ? DASH : String(v))
export const num = (v, digits = 1) => (isNum(v) ? v.toFixed(digits) : DASH)
export const pct = (v, digits = 1) => (isNum(v) ? `${(v * 100).toFixed(digits)}%` : DASH)
export const signedPct = (v, digits = 2) => (isNum(v) ? `${v > 0 ? '+' : ''}${(v * 100).toFixed(digits)}%` : DASH)
/** A-share colours: red up, green down. */
export const trendClass = (v) => (!isNum(v) || v === 0 ? 'flat' : v > 0 ? 'up' : 'down')

export function isRealDate(s) {
  if (!ISO_DATE.test(s)) return false
  const d = new Date(`${s}T00:00:00Z`)
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s
}

/** Yuan as 亿/万 in Chinese, B/M in English. */
export function amount(v, lang) {
  if (!isNum(v)) return DASH
  if (lang === 'zh') {
    if (Math.abs(v) >= 1e8) return `${(v / 1e8).toFixed(2)}亿`
    if (Math.abs(v) >= 1e4) return `${(v / 1e4).toFixed(0)}万`
    return v.toFixed(0)
  }
  for (const [size, unit] of [
    [1e12, 'T'],
    [1e9, 'B'],
    [1e6, 'M'],
  ])
    if (Math.abs(v) >= size) return `${(v / size).toFixed(2)}${unit}`
  return v.toLocaleString('en-US')
}

/** Yuan as 亿 in Chinese and B in English, for market values. */
export function marketValue(v, lang) {
  if (!isNum(v)) return DASH
  return lang === 'zh' ? `${(v / 1e8).toFixed(v >= 1e10 ? 0 : 1)}亿` : `${(v / 1e9).toFixed(v >= 1e11 ? 0 : 1)}B`
}

/** Shares as 万股/亿股 in Chinese, M/B in English. */
export function volumeText(v, lang) {
  if (!isNum(v)) return DASH
  if (lang === 'zh') return v >= 1e8 ? `${(v / 1e8).toFixed(2)}亿股` : `${(v / 1e4).toFixed(0)}万股`
  return v >= 1e9 ? `${(v / 1e9).toFixed(2)}B` : `${(v / 1e6).toFixed(2)}M`
}

/** An instant as `YYYY-MM-DD HH:mm` in Asia/Shanghai, followed by the zone's name (`zone`). */
export function shanghaiTime(iso, zone) {
  const d = new Date(iso)
  if (!iso || Number.isNaN(d.getTime())) return DASH
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', {
      timeZone: SHANGHAI,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(d)
      .map((p) => [p.type, p.value]),
  )
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute} ${zone}`
}

export function weekday(date, locale) {
  return new Intl.DateTimeFormat(locale, { weekday: 'short', timeZone: 'UTC' }).format(new Date(`${date}T00:00:00Z`))
}

/** The JSON body of `url`; an error answer throws `status: detail`. */
export async function getJson(url) {
  const res = await fetch(url, { headers: { accept: 'application/json' } })
  let body = null
  try {
    body = await res.json()
  } catch {
    body = null
  }
  if (!res.ok) {
    const detail = body && typeof body.detail === 'string' ? body.detail : res.statusText
    throw new Error(`${res.status}: ${detail}`)
  }
  return body
}
