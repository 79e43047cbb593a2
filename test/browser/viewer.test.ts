import type { AddressInfo } from 'node:net'
import { sql } from 'kysely'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../support/app.js'
import { type DemoMarket, seedDemoMarket } from '../support/demo-market.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'
import { launchChromium, loadViewer, type OpenedPage, openPage, screenshot } from './browser.js'

interface Row {
  code: string
  name: string
  score: number
  graph_evidence: { theme: string; segment: string; evidence: string }[]
}
interface Plan {
  date: string
  main: Row[]
  observe: Row[]
}

const HOSTILE_NAME = '<img src=x onerror=window.__pwned=1>'
const HOSTILE_EVIDENCE = '<script>window.__pwned=2</script>'

async function serve(t: TestDatabase, env: Record<string, string>): Promise<{ app: TestApp; base: string }> {
  const app = await buildTestApp(t, env)
  await app.app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.app.server.address() as AddressInfo
  return { app, base: `http://127.0.0.1:${port}` }
}

async function json<T>(url: string): Promise<T> {
  const res = await fetch(url)
  expect(res.status, url).toBe(200)
  return (await res.json()) as T
}

/** code, name and score (as shown, one decimal) of each row of a plan table, in order. */
async function tableRows(page: Page, table: string) {
  const rows = page.locator(`#${table} tr.row`)
  const [codes, names, scores] = await Promise.all([
    rows.locator('td.code').allTextContents(),
    rows.locator('td.name').allTextContents(),
    rows.locator('td.score').allTextContents(),
  ])
  return codes.map((code, i) => ({ code, name: names[i], score: scores[i] }))
}

const expected = (rows: Row[]) => rows.map((r) => ({ code: r.code, name: r.name, score: r.score.toFixed(1) }))

describe('plan viewer in a real browser', () => {
  let t: TestDatabase
  let demo: DemoMarket
  let server: { app: TestApp; base: string }
  let browser: Browser
  const pages: OpenedPage[] = []

  async function open(viewport?: { width: number; height: number }) {
    const opened = await openPage(browser, viewport)
    pages.push(opened)
    return opened
  }

  beforeAll(async () => {
    t = await createTestDatabase()
    demo = await seedDemoMarket(t, { history: 3 })
    server = await serve(t, demo.env)
    browser = await launchChromium()
  })
  afterAll(async () => {
    for (const p of pages) await p.close().catch(() => {})
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

  it('loads with no console errors and shows the tables of GET /plan', async () => {
    const { page, errors } = await open()
    const loaded = await loadViewer(page, `${server.base}/`)
    const plan = await json<Plan & { regime: { status: string }; snapshot: string; plan_source: string }>(
      `${server.base}/plan`,
    )
    expect(loaded).toBe(plan.date)
    expect(plan.main.length).toBeGreaterThan(0)
    expect(plan.observe.length).toBeGreaterThan(0)
    expect(await tableRows(page, 'main-table')).toEqual(expected(plan.main))
    expect(await tableRows(page, 'observe-table')).toEqual(expected(plan.observe))
    expect(await page.locator('#regime-status').textContent()).toBe(plan.regime.status)
    expect(await page.locator('#snapshot').textContent()).toBe(plan.snapshot)
    expect(await page.locator('#plan-source').textContent()).toBe(plan.plan_source)
    expect(await page.locator('#market .market-item').count()).toBe(4)
    expect(await page.locator('#date-picker').inputValue()).toBe(plan.date)
    expect(errors).toEqual([])
  })

  it('expands a row to its graph evidence', async () => {
    const { page, errors } = await open()
    await loadViewer(page, `${server.base}/`)
    const plan = await json<Plan>(`${server.base}/plan`)
    const row = plan.main.find((r) => r.graph_evidence.length > 0)!
    const tr = page.locator(`#main-table tr.row[data-code="${row.code}"]`)
    const detail = page.locator(`#main-table tr.row[data-code="${row.code}"] + tr.detail`)
    expect(await detail.isVisible()).toBe(false)
    await tr.locator('button.toggle').click()
    await detail.waitFor({ state: 'visible' })
    expect(await tr.locator('button.toggle').getAttribute('aria-expanded')).toBe('true')
    expect(await detail.locator('table.edges tbody tr').count()).toBe(row.graph_evidence.length)
    const edge = row.graph_evidence[0]!
    const firstEdge = await detail.locator('table.edges tbody tr').first().locator('td').allTextContents()
    expect(firstEdge.slice(0, 2)).toEqual([edge.theme, edge.segment])
    expect(firstEdge[4]).toBe(edge.evidence)
    await tr.locator('button.toggle').click()
    await detail.waitFor({ state: 'hidden' })
    expect(errors).toEqual([])
  })

  it('switching the date loads that date’s plan', async () => {
    const { page, errors } = await open()
    await loadViewer(page, `${server.base}/`)
    const { dates } = await json<{ dates: string[] }>(`${server.base}/plan/dates`)
    expect(await page.locator('#date-picker option').allTextContents()).toEqual(dates)
    const older = demo.planned[0]!
    expect(older).not.toBe(dates[0])
    await page.locator('#date-picker').selectOption(older)
    await page.locator(`body[data-loaded-date="${older}"]`).waitFor()
    const plan = await json<Plan>(`${server.base}/plan?date=${older}`)
    expect(await page.locator('#plan-date').textContent()).toBe(older)
    expect(await tableRows(page, 'main-table')).toEqual(expected(plan.main))
    expect(await tableRows(page, 'observe-table')).toEqual(expected(plan.observe))
    expect(new URL(page.url()).searchParams.get('date')).toBe(older)
    // a reload keeps the chosen date
    await page.reload()
    await page.locator(`body[data-loaded-date="${older}"]`).waitFor()
    expect(await page.locator('#date-picker').inputValue()).toBe(older)
    expect(errors).toEqual([])
  })

  it('looks up a held code (reject, held, with its logic state) and a bad code (its error)', async () => {
    const { page, errors } = await open()
    const latest = await loadViewer(page, `${server.base}/`)
    const held = await sql<{ code: string }>`
      select h.code from holdings h join tier_scores s on s.code = h.code and s.trade_date = ${latest}
      where h.qty > 0 order by h.code limit 1`.execute(t.db)
    const heldCode = held.rows[0]!.code
    const bad = '600519.SZ'
    await page.locator('#lookup-codes').fill(`${heldCode}  ${bad}`)
    await page.locator('#lookup-form button').click()
    const heldCard = page.locator(`.lookup-card[data-input="${heldCode}"]`)
    const badCard = page.locator(`.lookup-card[data-input="${bad}"]`)
    await heldCard.waitFor()
    await badCard.waitFor()

    const verdicts = await json<{ verdicts: Record<string, unknown>[] }>(
      `${server.base}/plan/verdict?codes=${heldCode},${bad}&date=${latest}`,
    )
    const states = await json<{ states: Record<string, unknown>[] }>(
      `${server.base}/logic_state?codes=${heldCode},${bad}&date=${latest}`,
    )
    const verdict = verdicts.verdicts[0]!
    expect(verdict).toMatchObject({ decision: 'reject', reason: 'held' })
    expect(await heldCard.locator('.decision').textContent()).toBe('reject')
    expect(await heldCard.locator('.reason').textContent()).toBe('held')
    expect(await heldCard.locator('.verdict-text').textContent()).toBe(verdict.verdict_text)

    const state = states.states.find((s) => s.code === heldCode)!
    const [keys, values] = await Promise.all([
      heldCard.locator('.state dl dt').allTextContents(),
      heldCard.locator('.state dl dd').allTextContents(),
    ])
    const facts = Object.fromEntries(keys.map((k, i) => [k, values[i]]))
    expect(facts).toMatchObject({
      State: state.logic_state,
      Since: state.state_since,
      Days: String(state.days_in_state),
      Rule: state.state_rule,
      Source: state.source,
    })
    expect(state).toHaveProperty('valuation_text')
    expect(state).toHaveProperty('company_review_text')
    expect(await heldCard.locator('.valuation').textContent()).toBe(
      `Valuation: ${state.valuation_text ?? 'no valuation for this code'}`,
    )
    expect(await heldCard.locator('.review').textContent()).toBe(
      `Company review: ${state.company_review_text ?? 'no review for this code'}`,
    )

    const badVerdict = verdicts.verdicts[1]!
    expect(badVerdict.error).toEqual(expect.any(String))
    expect(await badCard.locator('.verdict-error').textContent()).toBe(`Verdict: ${badVerdict.error}`)
    const badState = states.states.find((s) => s.input === bad)!
    expect(await badCard.locator('.state-error').textContent()).toBe(`Logic state: ${badState.error}`)
    expect(errors).toEqual([])
  })

  it('takes screenshots at desktop and phone width, with nothing wider than the phone viewport', async () => {
    const plan = await json<Plan>(`${server.base}/plan`)
    for (const [name, viewport] of [
      ['viewer-desktop.png', { width: 1280, height: 900 }],
      ['viewer-phone.png', { width: 375, height: 812 }],
    ] as const) {
      const { page, errors } = await open(viewport)
      await loadViewer(page, `${server.base}/`)
      await page.locator('#main-table tr.row button.toggle').first().click()
      await page.locator('#lookup-codes').fill(`${plan.main[0]!.code}, 600519.SZ`)
      await page.locator('#lookup-form button').click()
      await page.locator('.lookup-card').nth(1).waitFor()
      const width = await page.evaluate('document.documentElement.scrollWidth')
      expect(width).toBeLessThanOrEqual(viewport.width)
      await screenshot(page, name)
      expect(errors).toEqual([])
    }
  })

  // last: it rewrites a tier row of the latest date
  it('escapes HTML in the data', async () => {
    const plan = await json<Plan>(`${server.base}/plan`)
    const target = plan.main[0]!
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
