/**
 * The stock graph (theme -> segment -> stock edges with weight and evidence) and the theme events behind theme
 * heat. A few themes are "hot": their events rise over the last ~10 trading days and their members rally there.
 * A couple are "stale": their last event is more than 20 trading days old.
 */
import { clamp } from './format.js'
import { Random } from './random.js'
import type { Security } from './securities.js'
import { THEMES, type ThemeSpec } from './theme-catalog.js'

export interface ThemeEdge {
  readonly theme: string
  readonly segment: string
  readonly code: string
  readonly stockIndex: number
  /** 0..1 with 2 decimals. */
  readonly weight: number
  readonly evidence: string
  readonly track: string
}

export interface ThemeGraph {
  /** Catalog order of themes and segments; members of a segment in code order. */
  readonly edges: readonly ThemeEdge[]
  readonly hotThemes: readonly string[]
  readonly staleThemes: readonly string[]
  /** Per stock index: the weight of its strongest edge into a hot theme, 0 when it has none. */
  readonly hotWeight: Float64Array
}

export interface ThemeEvent {
  readonly tradeDate: string
  readonly theme: string
  readonly intensity: number
  readonly title: string
}

/** Trading days at the end of the window over which hot themes heat up and their members rally. */
export const HOT_WINDOW = 10
/** Stale themes have no event in this many trading days before the last date. */
export const STALE_GAP = 21

const EVIDENCE: ReadonlyArray<(product: string, customer: string, pct: number) => string> = [
  (p, c) => `为${c}供应${p}`,
  (p) => `${p}产品已批量出货`,
  (p, _c, pct) => `${p}业务收入占比约${pct}%`,
  (p, c) => `与${c}签订${p}长期供货协议`,
  (p) => `在建${p}产能预计明年投产`,
  (p, c) => `${p}通过${c}认证`,
]

type TitleTemplate = (theme: string, segment: string, product: string, customer: string) => string

const TITLES: readonly TitleTemplate[] = [
  (_t, _s, p, c) => `${c}发布${p}采购计划`,
  (t) => `${t}产业政策密集出台`,
  (_t, s, p) => `${s}龙头签订${p}大额订单`,
  (t) => `研报: "${t}"景气度持续上行`,
  (t, _s, p) => `${p}价格上涨, ${t}产业链受益`,
  (t) => `${t}板块资金净流入居前`,
  (_t, _s, p, c) => `${c}宣布加大${p}投入`,
  (_t, s) => `行业会议聚焦${s}, 多家公司参展`,
  (t) => `${t}相关公司获机构密集调研`,
  (_t, _s, p) => `${p}技术取得突破`,
]

const HOT_TITLES: readonly TitleTemplate[] = [
  (t) => `${t}主题指数创阶段新高`,
  (t) => `${t}概念股集体涨停`,
  (t, s) => `"${t}"持续发酵, ${s}方向领涨`,
  (_t, _s, p, c) => `${c}上调${p}需求预期`,
]

function segmentSize(rng: Random, poolSize: number): number {
  return Math.min(poolSize, clamp(Math.round(poolSize * rng.float(0.012, 0.035)), 5, 30))
}

/**
 * Members of one segment: mostly from the theme's industries, the rest from anywhere in the pool. Stocks not yet
 * in any theme tend to come first, so about half the market ends up themed while some stocks sit in several.
 */
function pickMembers(
  rng: Random,
  spec: ThemeSpec,
  pool: readonly Security[],
  size: number,
  used: Uint8Array,
): Security[] {
  const related = new Set(spec.industries)
  const order = (list: readonly Security[]) =>
    list
      .map((s) => ({ s, key: rng.next() + (used[s.index] ? 0.7 : 0) }))
      .sort((a, b) => a.key - b.key || a.s.index - b.s.index)
      .map((e) => e.s)
  const preferred = order(pool.filter((s) => related.has(s.industry.name)))
  const others = order(pool.filter((s) => !related.has(s.industry.name)))
  const fromPreferred = Math.min(preferred.length, Math.round(size * 0.8))
  const chosen = preferred.slice(0, fromPreferred)
  chosen.push(...others.slice(0, size - chosen.length))
  if (chosen.length < size) chosen.push(...preferred.slice(fromPreferred, fromPreferred + size - chosen.length))
  for (const s of chosen) used[s.index] = 1
  return chosen
}

export function generateThemeGraph(seed: number, securities: readonly Security[]): ThemeGraph {
  const rng = new Random(seed, 'themes')
  const pool = rng.sample(securities, Math.round(securities.length * 0.5))
  const hotCandidates = THEMES.filter((t) => t.track !== 'finance').map((t) => t.name)
  const hot = new Set(rng.sample(hotCandidates, rng.int(4, 6)))
  const stale = new Set(
    rng.sample(
      THEMES.map((t) => t.name).filter((n) => !hot.has(n)),
      2,
    ),
  )
  const edges: ThemeEdge[] = []
  const hotWeight = new Float64Array(securities.length)
  const used = new Uint8Array(securities.length)
  for (const spec of THEMES) {
    const own = new Random(seed, 'theme', spec.name)
    for (const segment of spec.segments) {
      const members = pickMembers(own, spec, pool, segmentSize(own, pool.length), used)
      const rows = members.map((s, i) => {
        const weight = Math.round((i < 2 ? own.float(0.8, 1) : own.float(0.2, 0.85)) * 100) / 100
        const evidence = own.pick(EVIDENCE)(own.pick(segment.products), own.pick(spec.customers), own.int(8, 60))
        return {
          theme: spec.name,
          segment: segment.name,
          code: s.code,
          stockIndex: s.index,
          weight,
          evidence,
          track: spec.track,
        }
      })
      rows.sort((a, b) => a.stockIndex - b.stockIndex)
      for (const row of rows) {
        edges.push(row)
        if (hot.has(spec.name)) hotWeight[row.stockIndex] = Math.max(hotWeight[row.stockIndex]!, row.weight)
      }
    }
  }
  const inCatalogOrder = (names: Set<string>) => THEMES.map((t) => t.name).filter((n) => names.has(n))
  return { edges, hotThemes: inCatalogOrder(hot), staleThemes: inCatalogOrder(stale), hotWeight }
}

function titleFor(rng: Random, spec: ThemeSpec, templates: readonly TitleTemplate[], used: Set<string>): string {
  for (let attempt = 0; attempt < 20; attempt++) {
    const segment = rng.pick(spec.segments)
    const title = rng.pick(templates)(spec.name, segment.name, rng.pick(segment.products), rng.pick(spec.customers))
    if (!used.has(title)) {
      used.add(title)
      return title
    }
  }
  let n = 2
  while (used.has(`${spec.name}动态(${n})`)) n++
  const fallback = `${spec.name}动态(${n})`
  used.add(fallback)
  return fallback
}

/** Events per theme and day; sorted by date, then theme in catalog order. (date, theme, title) is unique. */
export function generateThemeEvents(seed: number, graph: ThemeGraph, calendar: readonly string[]): ThemeEvent[] {
  const days = calendar.length
  const hotStart = Math.max(0, days - HOT_WINDOW)
  const hotLen = days - hotStart
  const lastStaleDay = days - 1 - STALE_GAP
  const byDay: ThemeEvent[][] = calendar.map(() => [])
  for (const spec of THEMES) {
    const rng = new Random(seed, 'events', spec.name)
    const isHot = graph.hotThemes.includes(spec.name)
    const isStale = graph.staleThemes.includes(spec.name)
    const rate = rng.float(0.15, 0.4)
    const base = isHot ? rng.float(20, 38) : rng.float(20, 55)
    // A stale theme still had news once: its last event sits just before the gap.
    const forcedStale = isStale && lastStaleDay >= 0 ? Math.max(0, lastStaleDay - rng.int(0, 4)) : -1
    for (let t = 0; t < days; t++) {
      const date = calendar[t]!
      const used = new Set<string>()
      const add = (intensity: number, templates: readonly TitleTemplate[]) => {
        const title = titleFor(rng, spec, templates, used)
        byDay[t]!.push({ tradeDate: date, theme: spec.name, intensity: clamp(Math.round(intensity), 0, 100), title })
      }
      if (isStale && t > lastStaleDay) continue
      if (isHot && t >= hotStart) {
        const ramp = 55 + (40 * (t - hotStart + 1)) / hotLen
        add(ramp + rng.normal(0, 3), [...HOT_TITLES, ...TITLES])
        if (rng.chance(0.4)) add(ramp - rng.float(5, 15), TITLES)
        continue
      }
      if (rng.chance(rate) || t === forcedStale) {
        add(base + rng.normal(0, 12) + (rng.chance(0.05) ? 25 : 0), TITLES)
      }
    }
  }
  return byDay.flat()
}
