import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RESEARCH_ATTEMPTS } from '../../src/domain/book-attribution.js'
import { VOCABULARY } from '../../src/domain/vocabulary.js'
import type { TrackRecordReport } from '../../src/services/track-record.service.js'
import { buildTestApp, listenLocal, type TestApp } from '../support/app.js'
import { createDemoDatabase, type DemoMarket, WEEKS_OF_PLANS } from '../support/demo-market.js'
import type { TestDatabase } from '../support/test-db.js'

/** The browser's own, inside page functions (the test's TypeScript has no DOM library). */
declare const getComputedStyle: (node: unknown) => { color: string }

import { launchChromium, type OpenedPage, openPage, screenshot } from './browser.js'

describe('track record: API and page in a real browser', () => {
  let t: TestDatabase
  let demo: DemoMarket
  let app: TestApp
  let base: string
  let browser: Browser
  const pages: OpenedPage[] = []

  beforeAll(async () => {
    ;[t, demo] = await createDemoDatabase(WEEKS_OF_PLANS)
    app = await buildTestApp(t, demo.env)
    base = `http://127.0.0.1:${await listenLocal(app.app)}`
    browser = await launchChromium()
  }, 120_000)
  afterAll(async () => {
    for (const p of pages) await p.close().catch(() => {})
    await browser?.close()
    await app?.close()
    await demo?.cleanup()
    await t?.drop()
  })

  it('GET /plan/track_record answers the evaluator figures; bad input is a 422 in plain words', async () => {
    const res = await fetch(`${base}/plan/track_record?horizon=1`)
    expect(res.status).toBe(200)
    const body = (await res.json()) as TrackRecordReport
    expect(body.horizon).toBe(1)
    expect(body.benchmark).toBe('000300.SH')
    expect(body.days).toBe(demo.planned.length - 1) // the last plan day's T+1 has not traded
    expect(body).toEqual(
      JSON.parse(JSON.stringify(await demo.services.trackRecord.evaluate({ horizon: 1, benchmark: '000300.SH' }))),
    )
    const bad: Array<[string, string]> = [
      ['horizon=7', 'horizon must be one of 1, 5, 20'],
      ['horizon=0', 'horizon'],
      [`from=${demo.planned[5]}&to=${demo.planned[1]}`, 'is after to'],
      ['benchmark=399006.SZ', 'no index bars for benchmark 399006.SZ'],
      ['from=2026-02-30', 'from'],
    ]
    for (const [query, detail] of bad) {
      const r = await fetch(`${base}/plan/track_record?${query}`)
      expect(r.status, query).toBe(422)
      expect(((await r.json()) as { detail: string }).detail, query).toContain(detail)
    }
  })

  it('serves uPlot from the installed package, and the page with a strict CSP', async () => {
    const js = await fetch(`${base}/vendor/uplot.js`)
    const file = createRequire(import.meta.url).resolve('uplot/dist/uPlot.iife.min.js')
    expect(await js.text()).toBe(await readFile(file, 'utf8'))
    const page = await fetch(`${base}/track-record`)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'")
  })

  it('draws the charts and tables of the API figures in words, and says so when a horizon has no outcomes', async () => {
    const opened = await openPage(browser, { width: 1280, height: 900 })
    pages.push(opened)
    const { page } = opened
    await page.goto(`${base}/track-record?horizon=1`)
    await page.locator('body[data-state="ready"]').waitFor()
    const api = (await (await fetch(`${base}/plan/track_record?horizon=1`)).json()) as TrackRecordReport
    // the main book's chart and three of the signal research, each a canvas with its legend, and the signal weights
    // when the builds stored them
    const weighted = (api as { weights?: unknown[] }).weights?.length ? 1 : 0
    expect(await page.locator('.uplot canvas').count()).toBe(4 + weighted)
    // the book first: its net value over the universe, key figures against the universe and CSI 300, capacity
    expect(api.book.days.length).toBeGreaterThan(10)
    expect(await page.locator('#book-title').textContent()).toBe('The main book as a PM holds it (after costs)')
    expect(await page.locator('#chart-book .u-legend').textContent()).toContain(
      'net value over the investable universe',
    )
    const headline = api.book.sizes.find((x) => x.size === api.book.headline_size)!
    const netRow = page.locator('#table-book tr').nth(2)
    expect(await netRow.locator('td').nth(1).textContent()).toBe(
      `${(headline.universe.net_excess.mean! * 100).toFixed(3)}% (${headline.universe.net_excess.t!.toFixed(2)})`,
    )
    expect(await netRow.locator('td').nth(1).getAttribute('class')).toBe(
      headline.universe.net_excess.mean! > 0 ? 'up' : 'down',
    )
    expect(await page.locator('#table-book tr').first().textContent()).toContain('vs 000300.SH (price index)')
    expect(await page.locator('#table-capacity tr td:first-child').allTextContents()).toEqual([
      '20 M',
      '100 M',
      '300 M',
    ])
    expect(await page.locator('#book-exposures').textContent()).toContain('not point in time')
    // the edge net of size and reversal, and the costs sensitivity, at the headline size (issue 47)
    expect(await page.locator('#book-edge-title').textContent()).toBe('Edge net of size and reversal at 100 M')
    const gross = api.book.attribution.gross!
    const edge = page.locator('#table-edge tr')
    expect(await edge.nth(1).locator('td').allTextContents()).toEqual([
      'Alpha a day (t)',
      `${(gross.alpha * 100).toFixed(3)}% (${gross.alpha_t!.toFixed(2)})`,
      expect.stringMatching(/%/),
    ])
    expect(await edge.nth(6).locator('td').allTextContents()).toEqual([
      `Deflated Sharpe ratio after ${RESEARCH_ATTEMPTS} attempts`,
      '',
      api.book.attribution.deflated_sharpe!.probability.toFixed(2),
    ])
    expect(await page.locator('#table-costs tr td:first-child').allTextContents()).toEqual([
      '0.5',
      '0.5',
      '0.75',
      '0.75',
      '1',
      '1',
    ])
    // the book's section comes before the signal research's summary
    expect(
      await page.evaluate(
        "Boolean(document.getElementById('book-section').compareDocumentPosition(document.getElementById('summary')) & Node.DOCUMENT_POSITION_FOLLOWING)",
      ),
    ).toBe(true)
    expect(await page.locator('#weights-section').isHidden()).toBe(weighted === 0)
    // the demo's builds keep each weight at its prior (PLAN_VERSION 4): the chart does not call them walk-forward
    if (weighted)
      expect(await page.locator('#weights-title').textContent()).toBe('Signal weights (fixed over this range)')
    // the colours stated on the page
    expect(await page.locator('#colour-legend').textContent()).toBe(
      'red: a gain · green: a loss (the A-share convention)',
    )
    expect(await page.locator('#colour-legend .up').textContent()).toBe('red: a gain')
    expect(await page.locator('#chart-ic .u-legend').textContent()).toContain('rank IC')
    const facts = await page.locator('#summary div').allTextContents()
    expect(facts[0]).toBe(`Plan days${api.days}`)
    expect(facts[1]).toBe(`Mean rank IC${api.ic.score.mean!.toFixed(3)}`)
    // gains red, losses green (A-share colours)
    const mean = page.locator('#summary div').nth(1).locator('dd')
    expect(await mean.getAttribute('class')).toBe(api.ic.score.mean! > 0 ? 'up' : 'down')
    expect(await mean.evaluate((n) => getComputedStyle(n).color)).toBe(
      api.ic.score.mean! > 0 ? 'rgb(208, 2, 27)' : 'rgb(10, 138, 58)',
    )
    const decisions = await page.locator('#table-decision tr td:first-child').allTextContents()
    const decisionWords: Record<string, string> = { main: 'main list', observe: 'observe list', reject: 'not selected' }
    expect(decisions).toEqual(api.groups.decision.map((g) => decisionWords[g.key]))
    const components = await page.locator('#table-components tr td:first-child').allTextContents()
    // a component (`pts_momentum`, PLAN_VERSION 2) or a signal (`reversal_5d`, 3) by its English name
    const en = VOCABULARY.terms.en
    const word = (key: string) => {
      const bare = key.replace(/^pts_/, '') as keyof typeof en.component & keyof typeof en.signal_name
      return en.signal_name[bare] ?? en.component[bare]
    }
    expect(components).toEqual(['score', ...Object.keys(api.ic.components).map(word)])
    expect(components.every((c) => c && !c.includes('_'))).toBe(true)
    // the x axis is the plan date T and says when the return is realised; no caveat for a 1-day horizon
    expect(await page.locator('#chart-equity').getAttribute('data-x-label')).toBe('plan date T (realised T+1)')
    expect(await page.locator('#equity-note').textContent()).toContain('its return is realised at the T+1 close')
    expect(await page.locator('#overlap').isHidden()).toBe(true)
    expect(await page.locator('#empty').isHidden()).toBe(true)
    await screenshot(page, 'track-record.png')
    expect(opened.errors).toEqual([])

    // from a plan day fewer than 20 trading days before the market's last: no cohort of the window has its outcome yet
    const lateDay = demo.planned[demo.planned.length - 5]!
    await page.fill('#from', lateDay)
    await page.selectOption('#horizon', '20')
    await page.click('button[type="submit"]')
    await page.locator('body[data-state="ready"]').waitFor()
    await page.locator('#empty').waitFor({ state: 'visible' })
    // the book does not depend on the cohorts' horizon: only its chart is left
    expect(await page.locator('.uplot').count()).toBe(1)
    expect(await page.locator('#chart-book .uplot').count()).toBe(1)
    expect(page.url()).toContain('horizon=20')
    expect(page.url()).toContain(`from=${lateDay}`)
  })

  it('speaks Chinese with the viewer’s switch, explains overlapping windows, draws signal weights, and says an unknown horizon', async () => {
    const opened = await openPage(browser, { width: 375, height: 812 }, 'zh-CN')
    pages.push(opened)
    const { page } = opened
    const weights = demo.planned.slice(0, 3).map((date, i) => ({
      date,
      weights: { reversal_5d: 0.3 - i * 0.05, momentum_6m_skip_1m: 0.2 + i * 0.05, heat: 0.5 },
    }))
    // the walk-forward score (issue 27) adds `weights`; the page draws them when they are there
    await page.route(/\/plan\/track_record\?/, async (route) => {
      const response = await route.fetch()
      await route.fulfill({ response, json: { ...(await response.json()), weights } })
    })
    await page.goto(`${base}/track-record?horizon=3`)
    await page.locator('body[data-state="ready"]').waitFor()
    expect(await page.locator('html').getAttribute('lang')).toBe('zh-CN')
    expect(await page.locator('#notice').textContent()).toBe(
      '地址中的持有期“3”不可用（只有 1、5、20 个交易日），改为显示 5。',
    )
    expect(await page.locator('#horizon').inputValue()).toBe('5')
    const api = (await (await fetch(`${base}/plan/track_record?horizon=5`)).json()) as TrackRecordReport
    expect(await page.locator('#overlap').textContent()).toContain(
      `${api.days} 个计划日只相当于约 ${Math.floor(api.days / 5)} 个独立窗口`,
    )
    expect(await page.locator('#chart-weights').getAttribute('data-signals')).toBe('3')
    // weights that moved are walk-forward
    expect(await page.locator('#weights-title').textContent()).toBe('信号权重随时间的变化（滚动前推）')
    expect(await page.locator('#chart-weights .u-legend').textContent()).toContain('5日反转')
    // the legend's date is the plan date itself, with no time of day, whatever the browser's zone
    expect(await page.locator('#chart-equity .u-legend').textContent()).not.toMatch(/\d{1,2}:\d{2}|[ap]m/)
    expect(await page.locator('#table-decision tr td:first-child').first().textContent()).toBe('主选')
    expect(await page.locator('#book-title').textContent()).toBe('主选组合（按投资经理持有方式，扣除成本）')
    expect(await page.locator('#book-edge-title').textContent()).toBe('剔除规模与反转后的超额（规模 1 亿）')
    expect(await page.locator('#table-capacity tr td:first-child').allTextContents()).toEqual([
      '0.2 亿',
      '1 亿',
      '3 亿',
    ])
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375)
    await page.locator('#lang-switch').click()
    await page.locator('html[lang="en"]').waitFor()
    expect(await page.locator('#chart-weights .u-legend').textContent()).toContain('5-day reversal')
    // the choice is the viewer's: the plan page opens in English now
    await page.goto(`${base}/`)
    await page.locator('body[data-loaded-date]').waitFor()
    expect(await page.locator('html').getAttribute('lang')).toBe('en')
    expect(opened.errors).toEqual([])
  })

  it('shows the API error text when the range is reversed', async () => {
    const opened = await openPage(browser)
    pages.push(opened)
    const { page } = opened
    await page.goto(`${base}/track-record?horizon=1&from=${demo.planned[6]}&to=${demo.planned[2]}`)
    await page.locator('body[data-state="error"]').waitFor()
    expect(await page.locator('#error').textContent()).toContain('is after to')
  })
})
