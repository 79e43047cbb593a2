import type { BookReport } from '../domain/book-report.js'
import type { GroupStat } from '../domain/track-record.js'
import type { TrackRecordReport } from '../services/track-record.service.js'

const BLOCKS = '▁▂▃▄▅▆▇█'

/** A one-line sparkline of a series, `width` characters wide at most (resampled evenly, first and last kept). */
export function sparkline(values: readonly number[], width = 60): string {
  if (values.length === 0) return ''
  const n = Math.min(width, values.length)
  const points =
    n === values.length
      ? [...values]
      : Array.from({ length: n }, (_, k) => values[Math.round((k * (values.length - 1)) / (n - 1))]!)
  const lo = Math.min(...points)
  const hi = Math.max(...points)
  return points.map((v) => BLOCKS[hi === lo ? 3 : Math.round(((v - lo) / (hi - lo)) * (BLOCKS.length - 1))]).join('')
}

const pct = (v: number | null | undefined, d = 2): string =>
  v === null || v === undefined ? '–' : `${(v * 100).toFixed(d)}%`
const num = (v: number | null | undefined, d = 3): string => (v === null || v === undefined ? '–' : v.toFixed(d))

/** Terminal columns of a string: CJK and full-width characters take two. */
function columns(text: string): number {
  let n = 0
  for (const ch of text)
    n += /[\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/u.test(ch) ? 2 : 1
  return n
}

const padEnd = (text: string, width: number): string => text + ' '.repeat(Math.max(0, width - columns(text)))
const padStart = (text: string, width: number): string => ' '.repeat(Math.max(0, width - columns(text))) + text

function tableText(head: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = head.map((h, i) => Math.max(columns(h), ...rows.map((r) => columns(r[i]!))))
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => (i === 0 ? padEnd(c, widths[i]!) : padStart(c, widths[i]!))).join('  ')
  return [line(head), widths.map((w) => '─'.repeat(w)).join('  '), ...rows.map(line)].join('\n')
}

function groups(title: string, list: readonly GroupStat[], limit = 20): string {
  return `${title}\n${tableText(
    ['group', 'count', 'mean excess', 'hit rate', 't'],
    list.slice(0, limit).map((g) => [g.key, String(g.count), pct(g.mean_excess), pct(g.hit_rate, 1), num(g.t, 2)]),
  )}`
}

/** The walk-forward weights' path: one column per sampled build date (about six), one row per signal. */
function weightsPath(weights: TrackRecordReport['weights'], samples = 6): string {
  if (weights.length === 0) return ''
  const n = Math.min(samples, weights.length)
  const picked = Array.from(
    { length: n },
    (_, k) => weights[Math.round((k * (weights.length - 1)) / Math.max(1, n - 1))]!,
  )
  const names = [...new Set(weights.flatMap((w) => Object.keys(w.weights)))]
  const rows = names.map((name) => [
    name,
    ...picked.map((w) => num(w.weights[name], 3)),
    sparkline(
      weights.map((w) => w.weights[name] ?? 0),
      24,
    ),
  ])
  return `Walk-forward signal weights (sign included: the prior until 20 plan days have outcomes, then shrunk toward it)\n${tableText(
    ['signal', ...picked.map((w) => w.date), 'path'],
    rows,
  )}`
}

const millions = (cny: number): string => `${(cny / 1e6).toFixed(0)} M`

/** The stamp duty rates in force over the book's days, each from the later of its start and the book's first day. */
export function stampDutyText(schedule: BookReport['costs']['stampDuty'], first: string, last: string): string {
  return schedule
    .filter((s, i) => s.from <= last && (schedule[i + 1]?.from ?? '9999-12-31') > first)
    .map((s) => `${pct(s.rate, 2)} from ${s.from > first ? s.from : first}`)
    .join(', ')
}

/** What the headline size's excess is made of, and its net figures under other costs (issue 47). */
function renderEdge(b: BookReport): string {
  const a = b.attribution
  const loading = (fit: NonNullable<BookReport['attribution']['gross']>, name: string) => {
    const l = fit.loadings.find((x) => x.name === name)
    return l ? `${num(l.beta, 2)} (${num(l.t, 2)})` : '–'
  }
  const fits = (['gross', 'net'] as const).flatMap((pick) => {
    const fit = a[pick]
    return fit
      ? [[pick, pct(fit.alpha, 3), num(fit.alpha_t, 2), loading(fit, 'size'), loading(fit, 'reversal'), num(fit.r2, 2)]]
      : []
  })
  const d = a.deflated_sharpe
  const m = a.matched
  return [
    `Edge net of size and reversal at ${millions(b.headline_size)}: the daily excess over the universe regressed on its factors (${a.factors}), Newey-West t, ${a.days} days`,
    fits.length
      ? tableText(['excess', 'alpha/day', 't', 'size (t)', 'reversal (t)', 'R²'], fits)
      : '  too few days for the regression',
    `  against a benchmark matched on traded-value decile: gross ${pct(m.gross.mean, 3)} a day (t ${num(m.gross.t, 2)}), net ${pct(m.net.mean, 3)} (t ${num(m.net.t, 2)})`,
    d
      ? `  deflated Sharpe ratio of the net excess: net IR ${num(d.net_ir, 2)} against ${num(d.lucky_best_ir, 2)}, the best of ${d.attempts} attempts without skill would show by luck: probability ${num(d.probability, 2)} that it beats it`
      : '  deflated Sharpe ratio: – (under 20 days of net excess, or none with a spread)',
    '',
    `Cost sensitivity at ${millions(b.headline_size)} (headline: impact ${b.costs.impact}, orders at most ${pct(b.costs.advCap, 0)} of 20-day traded value):`,
    tableText(
      ['impact', 'cap', 'net/day', 't', 'net IR', 'turnover/day', 'cost drag/yr'],
      b.cost_sensitivity.map((c) => [
        String(c.impact),
        pct(c.adv_cap, 0),
        pct(c.net_excess.mean, 3),
        num(c.net_excess.t, 2),
        num(c.net_ir, 2),
        pct(c.turnover, 1),
        pct(c.cost_drag),
      ]),
    ),
  ].join('\n')
}

/** The main book as a PM holds it: the tear sheet's headline. */
export function renderBook(b: BookReport): string {
  if (b.days.length === 0)
    return 'Main book: no plan day with a next trading day in this range (run the chain or `stockplan replay`)'
  const c = b.costs
  const stamp = stampDutyText(c.stampDuty, b.days[0]!.date, b.days.at(-1)!.date)
  const figures = (pick: 'universe' | 'benchmark') =>
    tableText(
      [
        'book size',
        'gross/day',
        't',
        'net/day',
        't',
        'net IR',
        'cumulative net',
        'max drawdown',
        'turnover/day',
        'cost drag/yr',
      ],
      b.sizes.map((s) => {
        const f = s[pick]
        return [
          millions(s.size),
          pct(f.gross_excess.mean, 3),
          num(f.gross_excess.t, 2),
          pct(f.net_excess.mean, 3),
          num(f.net_excess.t, 2),
          num(f.net_ir, 2),
          pct(f.cumulative_net_excess),
          pct(f.max_drawdown),
          pct(s.turnover, 1),
          pct(s.cost_drag),
        ]
      }),
    )
  const headline = b.sizes.find((s) => s.size === b.headline_size) ?? b.sizes[0]!
  const z = b.exposures.mean_z
  const industries = b.exposures.industries
    .slice(0, 5)
    .map((i) => `${i.industry} ${pct(i.book, 0)} vs ${pct(i.universe, 0)}`)
    .join(', ')
  return [
    `Main book ${b.from} .. ${b.to}: each plan day's main (first ${b.depth} names) in equal weights, traded at the next open (limit-up entrants not bought, limit-down or suspended leavers carried), ${b.days.length} days`,
    `Costs: commission ${pct(c.commission, 3)} a side, stamp duty on sells ${stamp}, half-spread ${pct(c.halfSpread, 2)}, impact ${c.impact} × 20-day vol × √(order / 20-day traded value), orders at most ${pct(c.advCap, 0)} of it (the rest on later days)`,
    '',
    `Against the investable universe (${b.universe.rule}), daily excess, Newey-West t:`,
    figures('universe'),
    `  net excess curve at ${millions(b.headline_size)} ${sparkline(b.days.map((d) => d.cum_net_excess))}`,
    `  quarters at ${millions(b.headline_size)}: ${headline.universe.quarters.map((q) => `${q.period} ${pct(q.excess, 1)}`).join('  ')}`,
    `  worst month ${headline.universe.worst_month ? `${headline.universe.worst_month.period} ${pct(headline.universe.worst_month.excess)}` : '–'}`,
    '',
    `Against ${b.benchmark.code} (${b.benchmark.note}):`,
    figures('benchmark'),
    '',
    `Exposures (${b.exposures.note}): size ${num(z.size, 2)}, beta ${num(z.beta, 2)}, volatility ${num(z.volatility, 2)}, reversal (5-day return) ${num(z.reversal, 2)}`,
    `  industries, book vs universe (largest gaps): ${industries || '–'}`,
    '',
    renderEdge(b),
  ].join('\n')
}

/** The readable terminal tear sheet of `stockplan evaluate`: the main book first, then the signal research. */
export function renderTearSheet(r: TrackRecordReport): string {
  const book = `${renderBook(r.book)}\n\n`
  if (r.days === 0)
    return `${book}no outcomes at horizon ${r.horizon} in this range: outcomes exist once T+${r.horizon} has traded (run the chain or \`stockplan replay\`)`
  const ic = r.ic.score
  const p = r.portfolio
  const untradable = Object.entries(r.untradable)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ')
  const parts = [
    `${book}Signal research (cohorts of h-day windows, not a book a PM holds)`,
    `Track record ${r.from} .. ${r.to}: ${r.days} plan days, horizon ${r.horizon} (buy T+1 open, sell T+${r.horizon} close), benchmark ${r.benchmark}`,
    `${r.rows} published rows${untradable ? `; untradable, left out: ${untradable}` : ''}`,
    '',
    tableText(
      ['signal', 'mean IC', 'ICIR', `t (HH ${Math.max(0, r.horizon - 1)} lags)`, 'days'],
      [['score', ic] as const, ...Object.entries(r.ic.components)].map(([name, s]) => [
        name,
        num(s.mean),
        num(s.icir, 2),
        num(s.t, 2),
        String(s.n),
      ]),
    ),
    `daily IC   ${sparkline(r.ic.daily.flatMap((d) => (d.score === null ? [] : [d.score])))}`,
    '',
    `Quintiles (mean return, low score → high): ${r.quintiles.mean_ret.map((q) => pct(q, 3)).join('  ')}`,
    `Top − bottom: ${pct(r.quintiles.top_minus_bottom.mean, 3)} (t ${num(r.quintiles.top_minus_bottom.t, 2)})`,
    '',
    `Main list, equal weight, after costs (commission ${pct(p.costs.commission, 3)} a side + stamp duty by date), ${p.invested_days} of ${r.days} days invested:`,
    `  cumulative excess ${pct(p.cum_excess)}, max drawdown ${pct(p.max_drawdown)}, IR ${num(p.ir, 2)}, turnover ${pct(p.mean_turnover, 0)} a day`,
    `  excess curve ${sparkline(p.days.map((d) => d.cum_excess))}`,
    '',
    groups('By decision', r.groups.decision),
    '',
    groups('By logic state', r.groups.logic_state),
    '',
    groups('By regime', r.groups.regime),
    '',
    groups('By theme (largest 10)', r.groups.theme, 10),
  ]
  const path = weightsPath(r.weights)
  if (path) parts.push('', path)
  return parts.join('\n')
}
