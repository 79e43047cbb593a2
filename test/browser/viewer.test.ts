import { readFile } from 'node:fs/promises'
import { sql } from 'kysely'
import type { Browser, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { VOCABULARY } from '../../src/domain/vocabulary.js'
import { buildTestApp, listenLocal, type TestApp } from '../support/app.js'
import { createDemoDatabase, type DemoMarket } from '../support/demo-market.js'
import type { TestDatabase } from '../support/test-db.js'
import { within } from '../support/wait.js'
import { createPagePool, launchChromium, loadViewer, screenshot } from './browser.js'

interface Row {
  code: string
  name: string
  score: number
  rank: number
  card_rank: number
  close: number | null
  pct_chg: number | null
  turnover_rate: number | null
  upside: number | null
  theme: string | null
  logic_state: string | null
  graph_evidence: { theme: string; segment: string; evidence: string }[]
}
interface Plan {
  date: string
  generated_at: string
  main: Row[]
  observe: Row[]
  card_counts: Record<string, number>
  regime: { status: string }
  snapshot: string
  plan_source: string
}
interface Verdict {
  input: string
  code?: string
  decision?: string
  reason?: string | null
  card_rank?: number | null
  rank?: number | null
  score?: number | null
  tier?: 'main' | 'observe' | 'reject'
  verdict_text?: string
  error?: string
}

/** The browser's own, inside page functions (the test's TypeScript has no DOM library). */
declare const getComputedStyle: (node: unknown) => { color: string; printColorAdjust: string; fontSize: string }

const HOSTILE_NAME = '<img src=x onerror=window.__pwned=1>'
const HOSTILE_EVIDENCE = '<script>window.__pwned=2</script>'
/** Internal keys of the API that must never reach the page as they are. */
const RAW_KEYS = [
  'new_listing',
  'beyond_obs_top',
  'beyond_top',
  'tier_reject',
  'not_in_tier_table',
  'theme_cap',
  'obs_top',
  'illiquid',
  'limit_up_close',
]
/** What each of PLAN_VERSION 2's six components could reach (its BUILD_RULES.points, as the viewer shows them). */
const V2_POINTS = { heat: 35, momentum: 15, trend: 10, upside: 20, liquidity: 10, quality: 10 }
const RED = 'rgb(208, 2, 27)'
const GREEN = 'rgb(10, 138, 58)'
const DESKTOP = { width: 1280, height: 900 }
const PHONE = { width: 375, height: 812 }

async function serve(t: TestDatabase, env: Record<string, string>): Promise<{ app: TestApp; base: string }> {
  const app = await within(buildTestApp(t, env), 20_000, 'building the app')
  const port = await within(listenLocal(app.app), 20_000, 'listening')
  return {
    app: { ...app, close: () => within(app.close(), 20_000, 'closing the app') },
    base: `http://127.0.0.1:${port}`,
  }
}

async function json<T>(url: string): Promise<T> {
  const res = await fetch(url, { signal: AbortSignal.timeout(20_000) })
  expect(res.status, url).toBe(200)
  return (await res.json()) as T
}

/** code, name and score (as shown, one decimal) of each row of a plan table, in order. */
async function tableRows(page: Page, table: string) {
  const rows = page.locator(`#${table} tr.row`)
  const [codes, names, scores, cards] = await Promise.all([
    rows.locator('td.code').allTextContents(),
    rows.locator('td.name').allTextContents(),
    rows.locator('td.score').allTextContents(),
    rows.locator('td.card-rank').allTextContents(),
  ])
  return codes.map((code, i) => ({ code, name: names[i], score: scores[i], card: cards[i] }))
}

const expected = (rows: Row[]) =>
  rows.map((r) => ({ code: r.code, name: r.name, score: r.score.toFixed(1), card: String(r.card_rank) }))

/** Latin words (two letters or more) of a Chinese page that neither the Chinese vocabulary nor the data has. */
function latinWordsOutsideVocabulary(shown: string, data: readonly string[]): string[] {
  const words = (text: string) => text.match(/[A-Za-z][A-Za-z_-]+/g) ?? [] // grades A-D are single letters
  const allowed = new Set(
    words(JSON.stringify(VOCABULARY.text.zh) + JSON.stringify(VOCABULARY.terms.zh) + data.join(' ')),
  )
  return [...new Set(words(shown))].filter((w) => !allowed.has(w))
}

/** RFC 4180 rows (quoted fields, doubled quotes, CRLF), as the export writes them. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let field = ''
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"'
        i++
      } else if (c === '"') quoted = false
      else field += c
    } else if (c === '"') quoted = true
    else if (c === ',') {
      row.push(field)
      field = ''
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field)
      rows.push(row)
      row = []
      field = ''
      i++
    } else field += c
  }
  return rows
}

const signed = (v: number) => `${v > 0 ? '+' : ''}${(v * 100).toFixed(2)}%`

/** `YYYY-MM-DD HH:mm` in Asia/Shanghai, computed here independently of the page. */
function shanghai(iso: string): string {
  const shifted = new Date(new Date(iso).getTime() + 8 * 3600_000).toISOString()
  return `${shifted.slice(0, 10)} ${shifted.slice(11, 16)}`
}

describe('plan viewer in a real browser', () => {
  let t: TestDatabase
  let demo: DemoMarket
  let server: { app: TestApp; base: string }
  let browser: Browser
  let dates: string[]
  let pages: ReturnType<typeof createPagePool>
  const open = (viewport = DESKTOP, locale = 'en-US') => pages.open(viewport, locale)

  beforeAll(async () => {
    // five plan days: holdings are kept 20 days (PLAN_VERSION 6), so in three days main took in no name
    ;[t, demo] = await createDemoDatabase({ history: 5 })
    server = await serve(t, demo.env)
    browser = await launchChromium()
    pages = createPagePool(browser)
    dates = (await json<{ dates: string[] }>(`${server.base}/plan/dates`)).dates
  })
  afterEach(async () => {
    await pages.release()
  })
  afterAll(async () => {
    await pages?.close()
    await browser?.close()
    await server?.app.close()
    await demo?.cleanup()
    await t?.drop()
  })

  it('serves the page with security headers, hidden from OpenAPI', async () => {
    const res = await fetch(`${server.base}/`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
    const csp = res.headers.get('content-security-policy') ?? ''
    expect(csp).toContain("script-src 'self'")
    expect(csp).toContain("style-src 'self'")
    expect(csp).toContain("connect-src 'self'")
    expect(csp).toContain("default-src 'none'")
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    expect(res.headers.get('referrer-policy')).toBe('no-referrer')
    expect(res.headers.get('x-frame-options')).toBe('DENY')
    const body = await res.text()
    expect(body).not.toMatch(/<script>|\sstyle=|\son\w+=/i) // nothing inline for the CSP to block
    for (const [asset, type] of [
      ['/viewer.js', 'text/javascript; charset=utf-8'],
      ['/i18n.js', 'text/javascript; charset=utf-8'],
      ['/viewer.css', 'text/css; charset=utf-8'],
    ] as const) {
      const r = await fetch(`${server.base}${asset}`)
      expect(r.status).toBe(200)
      expect(r.headers.get('content-type')).toBe(type)
      expect(r.headers.get('x-content-type-options')).toBe('nosniff')
    }
    const openapi = await json<{ paths: Record<string, unknown> }>(`${server.base}/openapi.json`)
    expect(Object.keys(openapi.paths)).not.toEqual(expect.arrayContaining(['/']))
    expect(openapi.paths['/viewer.js']).toBeUndefined()
    expect(openapi.paths['/plan']).toBeDefined()
  })

  it('shows the tables of GET /plan with close, change and turnover, and a # that is the card rank', async () => {
    const { page, errors } = await open()
    const loaded = await loadViewer(page, `${server.base}/`)
    const plan = await json<Plan>(`${server.base}/plan`)
    expect(loaded).toBe(plan.date)
    expect(plan.main.length).toBeGreaterThan(0)
    expect(plan.observe.length).toBeGreaterThan(0)
    expect(await tableRows(page, 'main-table')).toEqual(expected(plan.main))
    expect(await tableRows(page, 'observe-table')).toEqual(expected(plan.observe))
    // the quote fields come from the day's bars
    const bars = await sql<{ code: string; close: number; pre_close: number; turnover_rate: number }>`
      select code, close, pre_close, turnover_rate from daily_bars where trade_date = ${plan.date}`.execute(t.db)
    const bar = new Map(bars.rows.map((b) => [b.code, b]))
    for (const row of plan.main) {
      const b = bar.get(row.code)!
      expect(row.close).toBe(b.close)
      expect(row.pct_chg).toBeCloseTo(b.close / b.pre_close - 1, 10)
      expect(row.turnover_rate).toBeCloseTo(b.turnover_rate / 100, 10)
      const tr = page.locator(`#main-table tr.row[data-code="${row.code}"]`)
      expect(await tr.locator('td.close').textContent()).toBe(b.close.toFixed(2))
      expect(await tr.locator('td.chg').textContent()).toBe(signed(row.pct_chg!))
      expect(await tr.locator('td.turnover').textContent()).toBe(`${(b.turnover_rate).toFixed(2)}%`)
    }
    expect(await page.locator('#plan-date').textContent()).toBe(plan.date)
    expect(await page.locator('#regime-status').getAttribute('data-status')).toBe(plan.regime.status)
    expect(await page.locator('#market .market-item').count()).toBe(4)
    expect(await page.locator('#date-picker').inputValue()).toBe(plan.date)
    expect(errors).toEqual([])
  })

  it('follows the A-share colour convention: red up, green down', async () => {
    const { page, errors } = await open()
    await loadViewer(page, `${server.base}/`)
    const plan = await json<Plan>(`${server.base}/plan`)
    const rows = [...plan.main, ...plan.observe]
    const cells = page.locator('table.plan td.chg, table.plan td.upside')
    const colours = await cells.evaluateAll((nodes) =>
      nodes.map((n) => ({ cls: n.className, colour: getComputedStyle(n).color, text: n.textContent })),
    )
    expect(colours).toHaveLength(rows.length * 2)
    const values = rows.flatMap((r) => [r.pct_chg, r.upside])
    let ups = 0
    let downs = 0
    colours.forEach((c, i) => {
      const v = values[i]
      if (v === null || v === undefined || v === 0) expect(c.cls).toContain('flat')
      else if (v > 0) {
        ups++
        expect([c.cls.includes('up'), c.colour]).toEqual([true, RED])
      } else {
        downs++
        expect([c.cls.includes('down'), c.colour]).toEqual([true, GREEN])
      }
    })
    expect(ups).toBeGreaterThan(0)
    expect(downs).toBeGreaterThan(0)
    expect(errors).toEqual([])
  })

  it('speaks Chinese to a Chinese browser and English to others, switches and remembers the choice', async () => {
    const zh = await open(DESKTOP, 'zh-CN')
    await loadViewer(zh.page, `${server.base}/`)
    expect(await zh.page.locator('html').getAttribute('lang')).toBe('zh-CN')
    expect(await zh.page.locator('#main-title').textContent()).toContain('主选')
    expect(await zh.page.locator('#main-table th').nth(4).textContent()).toBe('收盘价')
    expect(await zh.page.locator('#lang-switch').textContent()).toBe('EN')

    const en = await open(DESKTOP, 'en-US')
    await loadViewer(en.page, `${server.base}/`)
    expect(await en.page.locator('html').getAttribute('lang')).toBe('en')
    expect(await en.page.locator('#main-title').textContent()).toContain('Main list')
    await en.page.locator('#lang-switch').click()
    await en.page.locator('html[lang="zh-CN"]').waitFor()
    expect(await en.page.locator('#main-title').textContent()).toContain('主选')
    await en.page.reload()
    await en.page.locator('body[data-loaded-date]').waitFor()
    expect(await en.page.locator('html').getAttribute('lang')).toBe('zh-CN') // the choice outlives a reload
    expect([...zh.errors, ...en.errors]).toEqual([])
  })

  it('shows times in Asia/Shanghai with the zone, and the session the plan is for', async () => {
    const plan = await json<Plan>(`${server.base}/plan`)
    const { page, errors } = await open()
    await loadViewer(page, `${server.base}/`)
    expect(await page.locator('#generated-at').textContent()).toBe(
      `${shanghai(plan.generated_at)} Beijing time (UTC+8)`,
    )
    // the latest date: the next weekday
    const next = new Date(`${plan.date}T00:00:00Z`)
    do next.setUTCDate(next.getUTCDate() + 1)
    while ([0, 6].includes(next.getUTCDay()))
    expect(await page.locator('#session-heading').getAttribute('data-session')).toBe(next.toISOString().slice(0, 10))
    // an older date: the next data date
    await page.locator('#date-picker').selectOption(dates[1]!)
    await page.locator(`body[data-loaded-date="${dates[1]}"]`).waitFor()
    expect(await page.locator('#session-heading').getAttribute('data-session')).toBe(dates[0])
    expect(errors).toEqual([])
  })

  it('switching the date loads that date’s plan, and the lookup on screen follows it', async () => {
    const { page, errors } = await open()
    const latest = await loadViewer(page, `${server.base}/`)
    expect(await page.locator('#date-picker option').allTextContents()).toEqual(dates)
    const older = demo.planned[0]!
    expect(older).not.toBe(latest)
    // a code whose decision differs between the two dates, when there is one
    const plan = await json<Plan>(`${server.base}/plan`)
    const codes = plan.main.map((r) => r.code).join(',')
    const before = (await json<{ verdicts: Verdict[] }>(`${server.base}/plan/verdict?codes=${codes}&date=${latest}`))
      .verdicts
    const after = (await json<{ verdicts: Verdict[] }>(`${server.base}/plan/verdict?codes=${codes}&date=${older}`))
      .verdicts
    const i = Math.max(
      0,
      after.findIndex((v, k) => v.decision !== before[k]!.decision || v.card_rank !== before[k]!.card_rank),
    )
    const code = plan.main[i]!.code
    await page.locator('#lookup-codes').fill(code)
    await page.locator('#lookup-codes').press('Enter')
    const card = page.locator(`.lookup-card[data-input="${code}"]`)
    await card.waitFor()
    expect(await card.getAttribute('data-date')).toBe(latest)
    expect(await card.locator('.decision').getAttribute('data-decision')).toBe(before[i]!.decision)

    await page.locator('#date-picker').selectOption(older)
    await page.locator(`body[data-loaded-date="${older}"]`).waitFor()
    await page.locator(`.lookup-card[data-date="${older}"]`).waitFor()
    expect(await page.locator(`.lookup-card[data-date="${latest}"]`).count()).toBe(0)
    expect(await card.locator('.decision').getAttribute('data-decision')).toBe(after[i]!.decision)
    expect(await card.locator('.as-of').textContent()).toContain(older)
    const olderPlan = await json<Plan>(`${server.base}/plan?date=${older}`)
    expect(await tableRows(page, 'main-table')).toEqual(expected(olderPlan.main))
    expect(new URL(page.url()).searchParams.get('date')).toBe(older)
    await page.reload()
    await page.locator(`body[data-loaded-date="${older}"]`).waitFor()
    expect(await page.locator('#date-picker').inputValue()).toBe(older)
    expect(errors).toEqual([])
  })

  it('says so when ?date= is not a date or not a plan date, and shows the latest', async () => {
    for (const [wanted, words] of [
      ['2026-13-45', 'not a real date'],
      ['2019-01-02', 'There is no plan for 2019-01-02'],
    ] as const) {
      const { page, errors } = await open()
      const loaded = await loadViewer(page, `${server.base}/?date=${wanted}`)
      expect(loaded).toBe(dates[0])
      const notice = page.locator('#date-notice')
      expect(await notice.isVisible()).toBe(true)
      expect(await notice.textContent()).toContain(wanted)
      expect(await notice.textContent()).toContain(words)
      expect(await notice.textContent()).toContain(dates[0])
      expect(new URL(page.url()).searchParams.get('date')).toBe(dates[0])
      expect(errors).toEqual([])
    }
  })

  it('looks up a held code, a bad code and a duplicate in words, each said once; the state shown is the rule’s inputs', async () => {
    const { page, errors } = await open()
    const latest = await loadViewer(page, `${server.base}/`)
    const held = await sql<{ code: string }>`
      select h.code from holdings h join tier_scores s on s.code = h.code and s.trade_date = ${latest}
      where h.qty > 0 order by h.code limit 1`.execute(t.db)
    const heldCode = held.rows[0]!.code
    const plan = await json<Plan>(`${server.base}/plan`)
    const third = plan.main[Math.min(2, plan.main.length - 1)]!
    const bad = '600519.SZ'
    // the same code twice, as typed by hand: one card that names the other input
    const duplicate = third.code.toLowerCase()
    await page.locator('#lookup-codes').fill(`${heldCode}  ${bad} ${third.code} ${duplicate}`)
    await page.locator('#lookup-form button').click()
    const heldCard = page.locator(`.lookup-card[data-input="${heldCode}"]`)
    const badCard = page.locator(`.lookup-card[data-input="${bad}"]`)
    const mainCard = page.locator(`.lookup-card[data-input="${third.code}"]`)
    await Promise.all([heldCard.waitFor(), badCard.waitFor(), mainCard.waitFor()])
    expect(await page.locator('.lookup-card').count()).toBe(3)
    expect(await mainCard.locator('.also').textContent()).toContain(duplicate)

    const verdicts = await json<{ verdicts: Verdict[] }>(
      `${server.base}/plan/verdict?codes=${heldCode},${bad}&date=${latest}`,
    )
    const verdict = verdicts.verdicts[0]!
    expect(verdict).toMatchObject({ decision: 'reject', reason: 'held' })
    expect(await heldCard.locator('.decision').textContent()).toBe('not selected')
    expect(await heldCard.locator('.decision').getAttribute('data-reason')).toBe('held')
    // decision, reason and ranks once each: the badge says the decision, the sentence the reason
    const sentence = (await heldCard.locator('.verdict-text').textContent()) ?? ''
    const tier = { main: 'main tier', observe: 'observe tier', reject: 'reject tier' }[verdict.tier!]
    expect(sentence).toBe(
      `already held in the portfolio (${tier}, market rank #${verdict.rank}, score ${verdict.score!.toFixed(1)}).`,
    )

    // "main list #3" on the card is the # of the table row
    expect(await mainCard.locator('.decision').textContent()).toBe(`main list #${third.card_rank}`)
    const row = page.locator(`#main-table tr.row[data-code="${third.code}"]`)
    expect(await row.locator('td.card-rank').textContent()).toBe(String(third.card_rank))
    expect(await row.locator('td.rank').textContent()).toBe(String(third.rank))

    // the state, its rule and the percentile EMA shown are the morning plan's stored rule inputs
    const stored = await sql<{
      logic_state: string
      state_since: string
      days_in_state: number
      score_pct: number
      pct_ema: number
    }>`select logic_state, state_since, days_in_state, score_pct, pct_ema from stock_daily
       where code = ${heldCode} and trade_date = ${latest}`.execute(t.db)
    const rule = stored.rows[0]!
    const fact = (key: string) => heldCard.locator(`[data-fact="${key}"] dd`).textContent()
    expect(await heldCard.locator('[data-fact="state.state"] .logic').getAttribute('data-state')).toBe(rule.logic_state)
    expect(await fact('state.since')).toBe(rule.state_since)
    expect(await fact('state.days')).toBe(String(rule.days_in_state))
    expect(await fact('state.pct')).toBe(`${rule.score_pct.toFixed(0)} / ${rule.pct_ema.toFixed(0)}`)
    expect(await fact('state.rule')).not.toMatch(/>=|^\w+:/) // the rule in words, not its source text
    expect(await fact('state.source')).toBe('stored with the morning plan')

    // a bad code: one line, in words, however many lookups refused it
    expect(await badCard.locator('.error').allTextContents()).toEqual([
      `Not a stock code: “${bad}” says SZ but 600519 trades on SH`,
    ])
    expect(verdicts.verdicts[1]!.error).toContain('says SZ but 600519 trades on SH')
    expect(errors).toEqual([])
  })

  it('offers lookup examples taken from the plan on screen, and they answer', async () => {
    const { page, errors } = await open()
    await loadViewer(page, `${server.base}/`)
    const plan = await json<Plan>(`${server.base}/plan`)
    const examples = await page.locator('#lookup-examples button.example').allTextContents()
    expect(examples[0]).toBe(plan.main[0]!.code)
    expect(examples[1]).toBe(plan.observe[0]!.code)
    await page.locator('#lookup-examples button.example').first().click()
    const card = page.locator(`.lookup-card[data-input="${plan.main[0]!.code}"]`)
    await card.waitFor()
    expect(await card.locator('.decision').getAttribute('data-decision')).toBe('main')
    expect(errors).toEqual([])
  })

  it('shows no internal key as it is, in either language, and no English word in Chinese', async () => {
    for (const locale of ['zh-CN', 'en-US']) {
      const { page, errors } = await open(DESKTOP, locale)
      await loadViewer(page, `${server.base}/`)
      const plan = await json<Plan>(`${server.base}/plan`)
      // codes with every kind of verdict: main, observe, held, rejected for a full list, absent, not a code
      const rejected = await sql<{ code: string }>`
        select code from tier_scores where trade_date = ${plan.date} order by rank desc limit 3`.execute(t.db)
      const codes = [
        plan.main[0]!.code,
        plan.observe[0]!.code,
        ...rejected.rows.map((r) => r.code),
        '000002.SZ',
        '60051',
      ]
      await page.locator('#lookup-codes').fill(codes.join(' '))
      await page.locator('#lookup-form button').click()
      await page
        .locator('.lookup-card')
        .nth(codes.length - 1)
        .waitFor()
      await page.locator('#main-table tr.row button.toggle').first().click()
      await page.locator('#main-table tr.row button.chart-open').first().click()
      await page.locator('#stock-panel[data-loaded]').waitFor()
      await page.locator('#glossary summary').click()
      const shown = await page.locator('body').innerText()
      for (const key of [...RAW_KEYS, 'weak_regime_demoted', 'b_share'])
        expect(shown, `${locale}: ${key}`).not.toContain(key)
      if (locale === 'zh-CN') {
        expect(await page.locator('#regime-source').textContent()).toMatch(
          /^\d{4}-\d{2}-\d{2} 快照：\d+ 项偏多，\d+ 项偏空$/,
        )
        const valuations = await page.locator('.lookup-card .valuation').allTextContents()
        expect(valuations.some((v) => v.startsWith('估值: 中性估值 '))).toBe(true)
        // every Latin word on the Chinese page is one the Chinese vocabulary itself uses (PE, ROE, ST, ...) or
        // comes from the data (codes, names, themes, evidence, industries)
        const stock = await json<{ industry: string | null }>(`${server.base}/stock/${plan.main[0]!.code}`)
        const data = [...plan.main, ...plan.observe].flatMap((r) => [
          r.code,
          r.name,
          ...r.graph_evidence.flatMap((e) => [e.theme, e.segment, e.evidence]),
        ])
        const foreign = latinWordsOutsideVocabulary(shown, [...data, stock.industry ?? ''])
        expect(foreign, 'Latin words on the Chinese page').toEqual([])
      }
      expect(errors).toEqual([])
    }
  })

  it('draws a stock’s chart from a row and from the lookup: a candle per stored traded day, with the plan’s marks', async () => {
    const { page, errors } = await open(DESKTOP, 'zh-CN')
    const latest = await loadViewer(page, `${server.base}/`)
    const plan = await json<Plan>(`${server.base}/plan`)
    const code = plan.main[0]!.code
    await page.locator(`#main-table tr.row[data-code="${code}"] button.chart-open`).click()
    await page.locator(`#stock-panel[data-loaded="${code} ${latest}"]`).waitFor()
    const traded = await sql<{ n: number }>`
      select count(*)::int as n from daily_bars
      where code = ${code} and trade_date <= ${latest} and not is_suspended`.execute(t.db)
    const candles = Math.min(120, traded.rows[0]!.n)
    expect(await page.locator('#stock-chart').getAttribute('data-candles')).toBe(String(candles))
    expect(await page.locator('#stock-chart .uplot canvas').count()).toBe(1)
    const stock = await json<{
      bars: { date: string; close: number; ma20: number | null }[]
      marks: { date: string; state_since: string }[]
    }>(`${server.base}/stock/${code}?date=${latest}`)
    expect(stock.bars).toHaveLength(candles)
    // forward-adjusted to the last bar: its close is the quoted close of the table
    expect(stock.bars.at(-1)!.close).toBe(plan.main[0]!.close)
    const changes = stock.marks.filter((m) => m.state_since === m.date).map((m) => m.date)
    expect(
      await page.locator('#stock-changes li').evaluateAll((n) => n.map((x) => x.getAttribute('data-date'))),
    ).toEqual(changes)
    expect(await page.locator('#stock-ohlc').textContent()).toContain(`收 ${plan.main[0]!.close!.toFixed(2)}`)

    // from the lookup, for another code; the panel follows the date picker
    const other = plan.observe[0]!.code
    await page.locator('#lookup-codes').fill(other)
    await page.locator('#lookup-form button').click()
    await page.locator(`.lookup-card[data-input="${other}"] button.chart-open`).click()
    await page.locator(`#stock-panel[data-loaded="${other} ${latest}"]`).waitFor()
    await page.locator('#date-picker').selectOption(dates[1]!)
    await page.locator(`#stock-panel[data-loaded="${other} ${dates[1]}"]`).waitFor()
    await page.locator('#stock-close').click()
    expect(await page.locator('#stock-panel').isHidden()).toBe(true)
    // and from the keyboard: Escape closes it
    await page.locator(`#main-table tr.row[data-code="${code}"] button.chart-open`).click()
    await page.locator('#stock-panel[data-loaded]').waitFor()
    await page.locator('#stock-title').focus()
    await page.keyboard.press('Escape')
    expect(await page.locator('#stock-panel').isHidden()).toBe(true)
    expect(errors).toEqual([])
  })

  it('filters, sorts and exports what is on screen as CSV (UTF-8 with BOM) that parses back to the table', async () => {
    const { page, errors } = await open(DESKTOP, 'zh-CN')
    await loadViewer(page, `${server.base}/`)
    const plan = await json<Plan>(`${server.base}/plan`)
    const theme = plan.main.find((r) => r.theme)!.theme!
    await page.locator('#main-tools .table-filter').fill(theme)
    await page.locator('#main-tools .table-sort').selectOption('col.score')
    await page.locator('#main-tools .table-dir').click() // descending
    const rows = page.locator('#main-table tr.row')
    const expectedCodes = plan.main
      .filter((r) => r.theme?.includes(theme) || r.name.includes(theme))
      .sort((a, b) => b.score - a.score)
      .map((r) => r.code)
    expect(await rows.locator('td.code').allTextContents()).toEqual(expectedCodes)
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('#main-tools .table-csv').click(),
    ])
    const bytes = await readFile((await download.path())!)
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
    const csv = parseCsv(bytes.subarray(3).toString('utf8'))
    const header = await page.locator('#main-table > thead th').allTextContents()
    const cells = await rows.evaluateAll((trs) =>
      trs.map((tr) => [...tr.children].slice(1).map((td) => td.textContent ?? '')),
    )
    expect(csv[0]).toEqual(header.slice(1).map((h) => h.replace(/ [↑↓]$/, '')))
    // a cell that begins like a formula (the delta column's `=`) is exported behind an apostrophe (csvText)
    const asShown = (cell: string): string => cell.replace(/^'(?=[=+\-@\t\r])/, '')
    expect(csv.slice(1).map((r) => r.slice(0, -1).map(asShown))).toEqual(cells.map((r) => r.slice(0, -1)))
    // the verdict column is exported in words, as the badges read
    expect(csv.slice(1).map((r) => r.at(-1))).toEqual(
      await rows.evaluateAll((trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td.verdict .badge')].map((b) => b.textContent).join(' · ')),
      ),
    )
    expect(errors).toEqual([])
  })

  it('marks what changed since the previous plan, equal to a SQL diff of the two dates', async () => {
    const { page, errors } = await open()
    // the newest plan date whose main took in a name (a holding is kept 20 days, so not every day changes)
    const changed = await sql<{ date: string; previous: string }>`
      select to_char(d.trade_date, 'YYYY-MM-DD') as date, to_char(p.trade_date, 'YYYY-MM-DD') as previous
      from (select distinct trade_date from stock_daily) d
      cross join lateral (select max(trade_date) as trade_date from stock_daily where trade_date < d.trade_date) p
      where p.trade_date is not null and exists (
        select 1 from stock_daily n where n.trade_date = d.trade_date and n.verdict = 'main' and not exists (
          select 1 from stock_daily o where o.trade_date = p.trade_date and o.code = n.code and o.verdict = 'main'))
      order by d.trade_date desc limit 1`.execute(t.db)
    expect(changed.rows).toHaveLength(1)
    const { date: latest, previous } = changed.rows[0]!
    expect(await loadViewer(page, `${server.base}/?date=${latest}`)).toBe(latest)
    const plan = await json<Plan>(`${server.base}/plan?date=${latest}`)
    const diff = await sql<{ code: string; was_main: boolean; rank_delta: number | null; score_delta: number | null }>`
      select s.code,
        exists (select 1 from stock_daily d where d.code = s.code and d.trade_date = ${previous} and d.verdict = 'main') as was_main,
        p.rank - s.rank as rank_delta, s.score - p.score as score_delta
      from tier_scores s left join tier_scores p on p.code = s.code and p.trade_date = ${previous}
      where s.trade_date = ${latest} and s.code = any(${plan.main.map((r) => r.code)})`.execute(t.db)
    const shown = await page.locator('#main-table tr.row').evaluateAll((trs) =>
      trs.map((tr) => {
        const cell = tr.querySelector('td.delta') as unknown as { dataset: Record<string, string> }
        return {
          code: tr.getAttribute('data-code'),
          isNew: tr.querySelector('td.delta .new') !== null,
          rank: cell.dataset.rankDelta ?? null,
          score: cell.dataset.scoreDelta ?? null,
        }
      }),
    )
    const byCode = new Map(diff.rows.map((d) => [d.code, d]))
    expect(shown).toEqual(
      plan.main.map((r) => {
        const d = byCode.get(r.code)!
        return {
          code: r.code,
          isNew: !d.was_main,
          rank: d.rank_delta === null ? null : String(d.rank_delta),
          score: d.score_delta === null ? null : d.score_delta.toFixed(1),
        }
      }),
    )
    const newNames = diff.rows.filter((d) => !d.was_main).map((d) => d.code)
    expect(newNames.length).toBeGreaterThan(0)
    expect(
      (
        await page.locator('[data-change="new-main"] li').evaluateAll((n) => n.map((x) => x.getAttribute('data-code')))
      ).sort(),
    ).toEqual(newNames.sort())
    const gone = await sql<{ code: string }>`
      select code from stock_daily where trade_date = ${previous} and verdict = 'main'
        and code <> all(${plan.main.map((r) => r.code)}) order by code`.execute(t.db)
    expect(
      (
        await page.locator('[data-change="gone-main"] li').evaluateAll((n) => n.map((x) => x.getAttribute('data-code')))
      ).sort(),
    ).toEqual(gone.rows.map((r) => r.code))
    expect(errors).toEqual([])
  })

  it('renders score components and flags when rows carry them, with explanations', async () => {
    const { page, errors } = await open(DESKTOP, 'zh-CN')
    // rows gain `components` and `flags` with the calibration work; the page must show them when present
    await page.route(/\/plan\?date=/, async (route) => {
      const response = await route.fetch()
      const body = (await response.json()) as { main: Array<Record<string, unknown>> }
      body.main[0] = {
        ...body.main[0],
        components: { momentum: 12.5, trend: 10, heat: 25, upside: 8, liquidity: 6, quality: 7.2 },
        flags: ['limit_up_close', 'new_listing'],
      }
      const plan = body as unknown as { card_counts: Record<string, number>; plan_version: string }
      plan.card_counts.weak_regime_demoted = 14
      // a PLAN_VERSION 2 plan: six components, each with its maximum
      plan.plan_version = '2'
      // the walk-forward score (PLAN_VERSION 3) sends signal contributions instead
      body.main[1] = {
        ...body.main[1],
        contributions: { reversal_5d: 4.5, momentum_6m_skip_1m: -2.25, heat: 30, value_ep: 1 },
      }
      await route.fulfill({ response, json: body })
    })
    await loadViewer(page, `${server.base}/`)
    const row = page.locator('#main-table tr.row').first()
    const P = V2_POINTS
    expect(await row.locator('td.score').getAttribute('title')).toBe(
      `动量 12.5/${P.momentum} + 趋势 10.0/${P.trend} + 题材热度 25.0/${P.heat} + 估值空间 8.0/${P.upside} + 流动性 6.0/${P.liquidity} + 质量 7.2/${P.quality}`,
    )
    expect(await row.locator('.flag').allTextContents()).toEqual(['涨停收盘', '次新股'])
    expect(await page.locator('#weak-note').textContent()).toBe(
      '弱势市场：今日主选名额收紧，14 只主选层候选降入观察列表。',
    )
    expect(await page.locator('#card-counts [data-key="weak_regime_demoted"]').textContent()).toBe('弱势市场降级 14')
    expect(await row.locator('.flag').first().getAttribute('title')).toContain('涨停')
    expect(await row.locator('.logic').getAttribute('title')).toMatch(/^(形成中|已确认|走弱|已破坏)：/)
    await row.locator('button.toggle').click()
    const detail = page.locator('#main-table tr.detail').first()
    expect(await detail.locator('[data-component="heat"] dd').textContent()).toBe(`25.0 / ${P.heat}`)
    expect(await detail.locator('[data-component="heat"]').getAttribute('title')).toContain('传导')
    // the weakest parts against their maxima, in words
    expect(await detail.locator('p.why').allTextContents()).toContain(
      `最弱分项：估值空间 8.0/${P.upside}、流动性 6.0/${P.liquidity}`,
    )
    const second = page.locator('#main-table tr.row').nth(1)
    expect(await second.locator('td.score').getAttribute('title')).toBe(
      '5日反转 +4.5 + 6个月动量 -2.3 + 题材热度 +30.0 + 价值（盈利收益率） +1.0',
    )
    await second.locator('button.toggle').click()
    const secondDetail = page.locator('#main-table tr.detail').nth(1)
    expect(await secondDetail.locator('[data-component="reversal_5d"]').getAttribute('title')).toContain('反转')
    expect(await secondDetail.locator('[data-component="momentum_6m_skip_1m"] dd').textContent()).toBe('-2.3')
    expect(await secondDetail.locator('p.why').allTextContents()).toContain(
      '加分最多：题材热度 +30.0、5日反转 +4.5；拖累最多：6个月动量 -2.3',
    )
    expect(errors).toEqual([])
  })

  it('says the same lookup failure once', async () => {
    const { page, errors } = await open()
    await loadViewer(page, `${server.base}/`)
    await page.route(/\/(plan\/verdict|logic_state)\?/, (route) =>
      route.fulfill({ status: 500, json: { detail: 'store unavailable: connection refused' } }),
    )
    await page.locator('#lookup-codes').fill('600519')
    await page.locator('#lookup-form button').click()
    await page.locator('.lookup-error').first().waitFor()
    expect(await page.locator('.lookup-error').allTextContents()).toEqual([
      'Lookup failed: 500: store unavailable: connection refused',
    ])
    expect(errors.every((e) => e.startsWith('http 500') || e.includes('500'))).toBe(true)
  })

  it('works from the keyboard: / to type, Enter to look up, Escape to clear, Tab and Enter to expand, [ ] for dates', async () => {
    const { page, errors } = await open()
    const latest = await loadViewer(page, `${server.base}/`)
    const plan = await json<Plan>(`${server.base}/plan`)
    await page.keyboard.press('/')
    expect(await page.evaluate('document.activeElement.id')).toBe('lookup-codes')
    await page.keyboard.type(plan.main[0]!.code)
    await page.keyboard.press('Enter')
    await page.locator(`.lookup-card[data-input="${plan.main[0]!.code}"]`).waitFor()
    await page.keyboard.press('Escape')
    expect(await page.locator('#lookup-codes').inputValue()).toBe('')
    await page.locator('#main-table tr.row button.toggle').first().focus()
    await page.keyboard.press('Enter')
    await page.locator('#main-table tr.detail').first().waitFor({ state: 'visible' })
    await page.locator('#main-section').focus()
    await page.keyboard.press('[')
    await page.locator(`body[data-loaded-date="${dates[1]}"]`).waitFor()
    await page.keyboard.press(']')
    await page.locator(`body[data-loaded-date="${latest}"]`).waitFor()
    expect(errors).toEqual([])
  })

  it('prints the plan without the controls', async () => {
    const { page, errors } = await open()
    await loadViewer(page, `${server.base}/`)
    await page.emulateMedia({ media: 'print' })
    for (const hidden of ['#lookup', '.controls', '#main-table td.toggle-cell >> nth=0'])
      expect(await page.locator(hidden).isVisible(), hidden).toBe(false)
    for (const shown of ['#main-table', '#observe-table', '#session-heading', '#regime'])
      expect(await page.locator(shown).isVisible(), shown).toBe(true)
    expect(
      await page
        .locator('#main-table td.chg.up, #main-table td.chg.down')
        .first()
        .evaluate((n) => getComputedStyle(n).printColorAdjust),
    ).toBe('exact')
    // codes and badges at the table's size, and the footer without the links' separators
    const sizes = await page
      .locator('#main-table tr.row')
      .first()
      .evaluate((tr) =>
        ['td.close', 'td.code', 'td.code button', '.badge'].map((q) => getComputedStyle(tr.querySelector(q)).fontSize),
      )
    expect(new Set(sizes).size, sizes.join(' ')).toBe(1)
    expect((await page.locator('footer').innerText()).trim()).toMatch(/^Daily Stock Plan Service [\d.]+$/)
    expect(errors).toEqual([])
  })

  it('takes screenshots of both pages in both languages at desktop and phone width, nothing wider than the phone', async () => {
    const plan = await json<Plan>(`${server.base}/plan`)
    for (const locale of ['zh-CN', 'en-US']) {
      for (const [name, viewport] of [
        ['desktop', DESKTOP],
        ['phone', PHONE],
      ] as const) {
        const { page, errors } = await open(viewport, locale)
        await loadViewer(page, `${server.base}/`)
        await page.locator('#main-table tr.row button.toggle').first().click()
        await page.locator('#lookup-codes').fill(`${plan.main[0]!.code}, 600519.SZ`)
        await page.locator('#lookup-form button').click()
        await page.locator('.lookup-card').nth(1).waitFor()
        await page.locator('#main-table tr.row button.chart-open').first().click()
        await page.locator('#stock-panel[data-loaded]').waitFor()
        const width = await page.evaluate('document.documentElement.scrollWidth')
        expect(width).toBeLessThanOrEqual(viewport.width)
        await screenshot(page, `viewer-${locale.slice(0, 2)}-${name}.png`)
        // the track record page, in the same pooled page: its language follows the browser's too
        await page.goto(`${server.base}/track-record?horizon=1`) // three plan days: 1-day outcomes only
        await page.locator('body[data-state="ready"]').waitFor()
        expect(await page.locator('html').getAttribute('lang')).toBe(locale === 'zh-CN' ? 'zh-CN' : 'en')
        const report = await json<{ weights?: unknown[] }>(`${server.base}/plan/track_record?horizon=1`)
        // the main book's curve, main vs benchmark, the excess, the daily IC; and the weights' path when there is one
        expect(await page.locator('.uplot canvas').count()).toBe(4 + (report.weights?.length ? 1 : 0))
        expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(viewport.width)
        if (locale === 'zh-CN') {
          const report = await json<{ groups: { theme: { key: string }[] } }>(
            `${server.base}/plan/track_record?horizon=1`,
          )
          const shown = await page.locator('body').innerText()
          expect(latinWordsOutsideVocabulary(shown, [...report.groups.theme.map((g) => g.key), '000300.SH'])).toEqual(
            [],
          )
        }
        await screenshot(page, `track-record-${locale.slice(0, 2)}-${name}.png`)
        expect(errors).toEqual([])
      }
    }
  })

  // these two rewrite tier rows (of the oldest and the latest date): they run last
  it('gives a reason for each empty list', async () => {
    const oldest = dates.at(-1)!
    await sql`update tier_scores set tier = 'observe' where trade_date = ${oldest} and tier = 'main'`.execute(t.db)
    const live = await serve(t, { ...demo.env, PLAN_FROM_SNAPSHOT: 'no' })
    try {
      for (const locale of ['en-US', 'zh-CN']) {
        const { page, errors } = await open(DESKTOP, locale)
        await loadViewer(page, `${live.base}/?date=${oldest}`)
        const plan = await json<Plan & { watch: unknown[] }>(`${live.base}/plan?date=${oldest}`)
        expect(plan.main).toEqual([])
        expect(plan.watch).toEqual([])
        const mainEmpty = page.locator('#main-empty')
        expect(await mainEmpty.isVisible()).toBe(true)
        expect(await page.locator('#main-table').isVisible()).toBe(false)
        const reason = (await mainEmpty.textContent()) ?? ''
        const c = plan.card_counts
        const screened = ['held', 'suspended', 'st', 'new_listing', 'illiquid'].reduce((n, k) => n + (c[k] ?? 0), 0)
        expect(reason).toContain(oldest)
        expect(reason).toContain(String(screened))
        expect(reason).toContain(locale === 'en-US' ? `held ${c.held}` : `持仓 ${c.held}`)
        expect(await page.locator('#watch-empty').textContent()).toContain(
          locale === 'en-US' ? 'is the earliest plan date' : '是最早的计划日期',
        )
        await screenshot(page, `viewer-${locale.slice(0, 2)}-empty-main.png`)
        expect(errors).toEqual([])
      }
    } finally {
      await live.app.close()
    }
  })

  it('escapes HTML in the data', async () => {
    const plan = await json<Plan>(`${server.base}/plan`)
    // a row with theme evidence to rewrite (since PLAN_VERSION 3 the first main row may have none)
    const target = plan.main.find((r) => r.graph_evidence.length > 0)!
    await sql`
      update tier_scores set name = ${HOSTILE_NAME},
        graph_evidence = jsonb_set(graph_evidence, '{0,evidence}', to_jsonb(${HOSTILE_EVIDENCE}::text))
      where trade_date = ${plan.date} and code = ${target.code}`.execute(t.db)
    await sql`update securities set name = ${HOSTILE_NAME} where code = ${target.code}`.execute(t.db)
    // the snapshot was written before the update: assemble live so the page gets the hostile row
    const live = await serve(t, { ...demo.env, PLAN_FROM_SNAPSHOT: 'no' })
    try {
      const { page, errors } = await open()
      await loadViewer(page, `${live.base}/`)
      const tr = page.locator(`#main-table tr.row[data-code="${target.code}"]`)
      expect(await tr.locator('td.name').textContent()).toBe(HOSTILE_NAME)
      await tr.locator('button.toggle').click()
      const detail = page.locator(`#main-table tr.row[data-code="${target.code}"] + tr.detail`)
      expect(await detail.locator('table.edges tbody tr').first().locator('td').nth(4).textContent()).toBe(
        HOSTILE_EVIDENCE,
      )
      await page.locator('#lookup-codes').fill(target.code)
      await page.locator('#lookup-form button').click()
      await page.locator(`.lookup-card[data-input="${target.code}"]`).waitFor()
      expect(await page.locator('.lookup-card h3').textContent()).toContain(HOSTILE_NAME)
      expect(await page.locator('main img, main script').count()).toBe(0)
      expect(await page.evaluate('window.__pwned')).toBeUndefined()
      expect(errors).toEqual([])
    } finally {
      await live.app.close()
    }
  })
})
