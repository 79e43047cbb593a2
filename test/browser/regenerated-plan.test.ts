/**
 * A dated plan regenerated while the viewer has it: the first code of its main list is suspended that day, the chain
 * reruns for the day and `POST /plan/refresh` answers 200. A reload of the page shows the new list, as the server
 * serves it, not the bytes the browser kept from before.
 */
import { sql } from 'kysely'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, listenLocal, type TestApp } from '../support/app.js'
import { createDemoDatabase, type DemoMarket } from '../support/demo-market.js'
import type { TestDatabase } from '../support/test-db.js'
import { within } from '../support/wait.js'
import { launchChromium, loadViewer, type OpenedPage, openPage } from './browser.js'

const mainCodes = (page: Page): Promise<string[]> => page.locator('#main-table tr.row td.code').allTextContents()

async function planCodes(base: string, date: string): Promise<string[]> {
  const res = await fetch(`${base}/plan?date=${date}`, { signal: AbortSignal.timeout(20_000) })
  expect(res.status).toBe(200)
  return ((await res.json()) as { main: Array<{ code: string }> }).main.map((r) => r.code)
}

describe('the viewer after a regenerate', () => {
  let t: TestDatabase
  let demo: DemoMarket
  let app: TestApp
  let base: string
  let browser: Browser
  let opened: OpenedPage

  beforeAll(async () => {
    ;[t, demo] = await createDemoDatabase({ history: 2 })
    app = await within(buildTestApp(t, demo.env), 20_000, 'building the app')
    base = `http://127.0.0.1:${await within(listenLocal(app.app), 20_000, 'listening')}`
    browser = await launchChromium()
    opened = await openPage(browser)
  })
  afterAll(async () => {
    await opened?.close()
    await browser?.close()
    await app?.close()
    await demo?.cleanup()
    await t?.drop()
  })

  it('shows the regenerated plan of a dated day after POST /plan/refresh and a reload', async () => {
    const { page, errors } = opened
    const date = demo.planned.at(-2)! // a day before the latest: the one a max-age kept
    expect(await loadViewer(page, `${base}/?date=${date}`)).toBe(date)
    const before = await mainCodes(page)
    expect(before).toEqual(await planCodes(base, date))
    const suspended = before[0]!

    // the code first in main did not trade that day after all; the day's chain reruns, the plan is refreshed
    await sql`update daily_bars set is_suspended = true where code = ${suspended} and trade_date = ${date}`.execute(
      t.db,
    )
    await demo.services.chain({ date }, new AbortController().signal)
    const refresh = await fetch(`${base}/plan/refresh?date=${date}`, { method: 'POST' })
    expect(refresh.status).toBe(200)
    const regenerated = await planCodes(base, date)
    expect(regenerated).not.toContain(suspended)

    await page.reload()
    await page.locator(`body[data-loaded-date="${date}"]`).waitFor()
    expect(await mainCodes(page)).toEqual(regenerated)
    expect(errors).toEqual([])
  })
})
