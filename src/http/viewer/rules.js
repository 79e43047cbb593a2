// The API's rule texts (written in English by the build and the logic-state rules) as words of the page's
// language. Each pattern mirrors one template of src/domain/logic-state.ts, tiers.ts, company-review.ts or
// codes.ts; a text no pattern knows is shown as it came (never hidden), and the browser test's scan of the Chinese
// page catches it.

const CAUSES = [
  [/^loss in (\S+) \(EPS (-?[\d.]+)\)$/, (t, m) => t('cause.loss', { period: m[1], eps: m[2] })],
  [
    /^profit collapse in (\S+) \(net profit (-?[\d.]+%) y\/y\)$/,
    (t, m) => t('cause.collapse', { period: m[1], chg: m[2] }),
  ],
  [/^hard invalidation triggered$/, (t) => t('cause.hard')],
  [/^absent from the tier table (\d+) days$/, (t, m) => t('logicRule.absent', { days: m[1] })],
]

const LOGIC = [
  [/^forming: first day tracked$/, (t) => t('logicRule.first')],
  [
    /^confirmed: score percentile EMA (\d+) >= (\d+) for (\d+) days$/,
    (t, m) => t('logicRule.enter', { ema: m[1], enter: m[2], days: m[3] }),
  ],
  [
    /^confirmed: score percentile EMA back >= (\d+) for (\d+) days$/,
    (t, m) => t('logicRule.back', { enter: m[1], days: m[2] }),
  ],
  [
    /^broken: score percentile EMA (\d+) below (\d+) after (\d+) days forming$/,
    (t, m) => t('logicRule.fail', { ema: m[1], limit: m[2], days: m[3] }),
  ],
  [
    /^weakening: score percentile EMA (\d+) below exit (\d+)$/,
    (t, m) => t('logicRule.exit', { ema: m[1], exit: m[2] }),
  ],
  [/^broken: score percentile EMA (\d+) below (\d+)$/, (t, m) => t('logicRule.below', { ema: m[1], limit: m[2] })],
  [
    /^broken: (\d+) days weakening without getting back to (\d+)$/,
    (t, m) => t('logicRule.stale', { days: m[1], enter: m[2] }),
  ],
  [
    /^forming: re-armed, score percentile EMA (\d+) >= (\d+) after (\d+) days broken$/,
    (t, m) => t('logicRule.rearm', { ema: m[1], rearm: m[2], days: m[3] }),
  ],
]

const TIER = [
  [
    /^score ([\d.]+) >= main cut ([\d.]+) \(top ([\d.]+)% of (\d+) eligible, floor ([\d.]+)\)$/,
    (t, m) => t('tierRule.main', { score: m[1], cut: m[2], pct: m[3], n: m[4], floor: m[5] }),
  ],
  [
    /^score ([\d.]+) >= observe cut ([\d.]+) \(below main cut ([\d.]+|none)\)$/,
    (t, m) => t('tierRule.observe', { score: m[1], cut: m[2], main: m[3] === 'none' ? '–' : m[3] }),
  ],
  [
    /^weak regime: main limited to the top ([\d.]+)% \(cut ([\d.]+)\); score ([\d.]+) would be main on a normal day$/,
    (t, m) => t('tierRule.weak', { pct: m[1], cut: m[2], score: m[3] }),
  ],
  [
    /^score ([\d.]+) below the day's observe cut ([\d.]+) \(top ([\d.]+)% of (\d+) eligible, floor ([\d.]+)\)$/,
    (t, m) => t('tierRule.reject', { score: m[1], cut: m[2], pct: m[3], n: m[4], floor: m[5] }),
  ],
  [/^no observe cut: (\d+) eligible rows$/, (t, m) => t('tierRule.no_cut', { n: m[1] })],
  // PLAN_VERSION 3: percentile entry, stay band and a fixed number of main places
  [
    /^score ([\d.]+) >= stay band ([\d.]+): kept from yesterday's main$/,
    (t, m) => t('tierRule.stay', { score: m[1], stay: m[2] }),
  ],
  [
    /^score ([\d.]+) >= entry ([\d.]+) \(percentile among (\d+) eligible\), a free main place$/,
    (t, m) => t('tierRule.entry', { score: m[1], entry: m[2], n: m[3] }),
  ],
  [
    /^weak regime: main limited to (\d+) places; score ([\d.]+) would be main on a normal day$/,
    (t, m) => t('tierRule.weak_slots', { slots: m[1], score: m[2] }),
  ],
  [
    /^score ([\d.]+) >= observe ([\d.]+); main is empty: (.+)$/,
    (t, m) => t('tierRule.observe_empty', { score: m[1], observe: m[2], why: emptyWhy(t, m[3]) }),
  ],
  [
    /^score ([\d.]+) >= entry ([\d.]+) but (a one-word board|closed limit-up) on T: not buyable at the open, no main place$/,
    (t, m) => t(m[3] === 'a one-word board' ? 'tierRule.one_word' : 'tierRule.limit_up', { score: m[1], entry: m[2] }),
  ],
  [
    /^score ([\d.]+) >= entry ([\d.]+), but main's (\d+) places are taken$/,
    (t, m) => t('tierRule.full', { score: m[1], entry: m[2], slots: m[3] }),
  ],
  [
    /^score ([\d.]+) >= observe ([\d.]+) \(percentile among (\d+) eligible\)$/,
    (t, m) => t('tierRule.observe_pct', { score: m[1], observe: m[2], n: m[3] }),
  ],
  [
    /^score ([\d.]+) fell below the stay band ([\d.]+): left main$/,
    (t, m) => t('tierRule.left', { score: m[1], stay: m[2] }),
  ],
  [
    /^score ([\d.]+) below observe ([\d.]+) \(percentile among (\d+) eligible\)$/,
    (t, m) => t('tierRule.below_pct', { score: m[1], observe: m[2], n: m[3] }),
  ],
  // PLAN_VERSION 5 and 6: entry, stay and switch against each trade's cost
  [
    /^kept from yesterday's main: expected excess (-?[\d.]+)% >= -([\d.]+)%, the cost of selling; held (\d+) days or more: switchable$/,
    (t, m) => t('tierRule.v6_kept_switchable', { alpha: m[1], sell: m[2], days: m[3] }),
  ],
  [
    /^kept from yesterday's main: expected excess (-?[\d.]+)% >= -([\d.]+)%, the cost of selling; held (\d+) days or more: switchable, but a weak day switches nothing$/,
    (t, m) => t('tierRule.v6_kept_weak', { alpha: m[1], sell: m[2], days: m[3] }),
  ],
  [
    /^kept from yesterday's main: expected excess (-?[\d.]+)% >= -([\d.]+)%, the cost of selling; held (\d+) of (\d+) days: not yet switchable$/,
    (t, m) => t('tierRule.v6_kept_young', { alpha: m[1], sell: m[2], days: m[3], horizon: m[4] }),
  ],
  [
    /^kept from yesterday's main: expected excess (-?[\d.]+)% >= -([\d.]+)%, the cost of selling$/,
    (t, m) => t('tierRule.v5_kept', { alpha: m[1], sell: m[2] }),
  ],
  [
    /^left main: expected excess (-?[\d.]+)% below -([\d.]+)%, the cost of selling$/,
    (t, m) => t('tierRule.v5_left', { alpha: m[1], sell: m[2] }),
  ],
  [
    /^entered: expected excess (-?[\d.]+)% >= round trip ([\d.]+)% at ([\d.]+) M CNY$/,
    (t, m) => t('tierRule.v5_entered', { alpha: m[1], cost: m[2], size: m[3] }),
  ],
  [
    /^replaced (\S+): expected excess (-?[\d.]+)% less its (-?[\d.]+)% >= ([\d.]+)%, the switch's cost$/,
    (t, m) => t('tierRule.v5_replaced', { out: m[1], alpha: m[2], outAlpha: m[3], cost: m[4] }),
  ],
  [
    /^left main: replaced by (\S+), whose expected excess beats it by more than the switch costs$/,
    (t, m) => t('tierRule.v5_switched_out', { in: m[1] }),
  ],
  [
    /^weak regime: no new entries today; expected excess (-?[\d.]+)% covers its round trip ([\d.]+)%: would enter on a normal day$/,
    (t, m) => t('tierRule.v5_weak', { alpha: m[1], cost: m[2] }),
  ],
  [
    /^score ([\d.]+) >= observe ([\d.]+) but (a one-word board|closed limit-up) on T: not buyable at the open, no main place$/,
    (t, m) => t(m[3] === 'a one-word board' ? 'tierRule.v5_one_word' : 'tierRule.v5_limit_up', { score: m[1] }),
  ],
  [
    /^score ([\d.]+): expected excess (-?[\d.]+)% covers its round trip ([\d.]+)%, but main's (\d+) places are taken and no switch pays$/,
    (t, m) => t('tierRule.v5_full', { score: m[1], alpha: m[2], cost: m[3], slots: m[4] }),
  ],
  // PLAN_VERSION 6: a holding is switched only after the horizon; an order must fill in a day
  [
    /^score ([\d.]+): expected excess (-?[\d.]+)% covers its round trip ([\d.]+)%, but main's (\d+) places are taken and no switch pays \(a name is held (\d+) days before it can be switched\)$/,
    (t, m) => t('tierRule.v6_full', { score: m[1], alpha: m[2], cost: m[3], slots: m[4], days: m[5] }),
  ],
  [
    /^score ([\d.]+): expected excess (-?[\d.]+)% covers its round trip ([\d.]+)%, but an order of ([\d.]+) M CNY is above ([\d.]+)% of its 20-day traded value: it would not fill in a day$/,
    (t, m) => t('tierRule.v6_thin', { score: m[1], alpha: m[2], cost: m[3], order: m[4], cap: m[5] }),
  ],
  [
    /^score ([\d.]+) >= observe ([\d.]+); expected excess (-?[\d.]+)% below its round trip ([\d.]+)% at ([\d.]+) M CNY$/,
    (t, m) => t('tierRule.v5_costly', { score: m[1], observe: m[2], alpha: m[3], cost: m[4], size: m[5] }),
  ],
  [/^hard invalidation: (.+)$/, (t, m) => t('tierRule.invalidated', { cause: cause(t, m[1]) })],
]

const CODE_ERRORS = [
  [/^empty code$/, (t) => t('codeError.empty')],
  [/^"(.*)" is not a stock code: the symbol must be 6 digits$/, (t, m) => t('codeError.digits6', { input: m[1] })],
  [
    /^"(.*)" is not a stock code: (\d+) digits, a symbol has 6$/,
    (t, m) => t('codeError.digits', { input: m[1], n: m[2] }),
  ],
  [/^"(.*)" has both an exchange prefix and a suffix/, (t, m) => t('codeError.both', { input: m[1] })],
  [/^"(.*)" is not a stock code: use 600519\.SH/, (t, m) => t('codeError.form', { input: m[1] })],
  [/^"(.*)" names an unknown exchange "(.*)"/, (t, m) => t('codeError.exchange', { input: m[1], ex: m[2] })],
  [
    /^"(.*)" is not a stock code: no A-share board uses the prefix (\d+)$/,
    (t, m) => t('codeError.prefix', { input: m[1], prefix: m[2] }),
  ],
  [
    /^"(.*)" says (\w+) but (\d+) trades on (\w+)$/,
    (t, m) => t('codeError.mismatch', { input: m[1], stated: m[2], symbol: m[3], exchange: m[4] }),
  ],
]

function translate(table, t, text) {
  if (typeof text !== 'string') return null
  for (const [pattern, words] of table) {
    const m = pattern.exec(text)
    if (m) return words(t, m)
  }
  return null
}

const EMPTY_MAIN = [
  [/^no signal carries weight/, (t) => t('emptyMain.no_weight')],
  [/^no stock passes the screen today/, (t) => t('emptyMain.no_eligible')],
  [
    /^no eligible stock scored at or above the entry ([\d.]+) today$/,
    (t, m) => t('emptyMain.below_entry', { entry: m[1] }),
  ],
  [/^no eligible stock is expected to earn its round trip today, and nothing is held$/, (t) => t('emptyMain.no_edge')],
]

/** Why `main` is empty (the build's words, also the plan's `main_empty`), as words. */
export function emptyWhy(t, text) {
  return translate(EMPTY_MAIN, t, text) ?? text
}

function cause(t, text) {
  return translate(CAUSES, t, text) ?? text
}

/** `confirmed: score percentile EMA 85 >= 80 for 2 days` as words; the state itself is shown beside it. */
export function logicRuleWords(t, rule) {
  const known = translate(LOGIC, t, rule)
  if (known) return known
  const broken = /^broken: (.+)$/.exec(rule ?? '')
  if (broken) return cause(t, broken[1])
  return rule ?? null
}

/** Why a row has its tier (`score 61.2 >= main cut 58.0 (top 5% of 800 eligible, floor 50)`), as words. */
export function tierRuleWords(t, rule) {
  return translate(TIER, t, rule) ?? rule ?? null
}

/** Why an input is not a code (codes.ts wording), as words. */
export function codeErrorWords(t, error) {
  return translate(CODE_ERRORS, t, error) ?? error
}

/** Whether an error entry is the code parser's (a bad input), not a failed lookup of a good code. */
export function isCodeError(error) {
  return translate(CODE_ERRORS, () => '', error) !== null
}
