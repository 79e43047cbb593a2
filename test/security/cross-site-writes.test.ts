/**
 * A page of another site, in Chromium, cannot change the plan: its no-cors `fetch` POST and its text/plain form
 * POST to `/plan/refresh` get 403 and leave the plan file and the plan cache as they were, while a server-side
 * caller (`curl -X POST`, as the PMS does) still refreshes; `/docs` renders under its CSP. One browser, one page.
 */
import { execFile } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { promisify } from 'node:util'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium, openPage } from '../browser/browser.js'
import { buildTestApp, listenLocal, type TestApp } from '../support/app.js'
import { createDemoDatabase, type DemoMarket } from '../support/demo-market.js'
import type { TestDatabase } from '../support/test-db.js'

const execFileAsync = promisify(execFile)
const MARKER = '# planted by the test: a refresh rewrites this\n'

describe('cross-site writes', () => {
  let t: TestDatabase
  let demo: DemoMarket
  let built: TestApp
  let browser: Browser
  let attacker: http.Server
  let service = ''
  let attackerUrl = ''
  let date = ''
  let planFile = ''

  beforeAll(async () => {
    ;[t, demo] = await createDemoDatabase({ stocks: 300, history: 2 })
    date = demo.planned.at(-1)!
    planFile = path.join(demo.planDataDir, 'plans', `${date}.md`)
    built = await buildTestApp(t, demo.env)
    service = `http://127.0.0.1:${await listenLocal(built.app)}`
    // another site: `localhost` on another port is cross-site to `127.0.0.1`
    attacker = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      res.end(`<!doctype html><title>elsewhere</title>
        <form id="f" method="POST" enctype="text/plain" action="${service}/plan/refresh?date=${date}">
          <input name="x" value="y"></form>`)
    })
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve))
    attackerUrl = `http://localhost:${(attacker.address() as AddressInfo).port}/`
    browser = await launchChromium()
  }, 120_000)
  afterAll(async () => {
    await browser?.close()
    await new Promise((resolve) => attacker?.close(resolve))
    await built?.close()
    await demo?.cleanup()
    await t?.drop()
  })

  it('refuses the foreign page with 403 and leaves file and cache alone; curl -X POST still refreshes', async () => {
    await writeFile(planFile, MARKER)
    expect((await built.app.inject(`/plan?date=${date}`)).statusCode).toBe(200)
    const cached = built.services.plans.cacheKeys()
    expect(cached.length).toBeGreaterThan(0)

    const { page, errors, close } = await openPage(browser)
    const answers: number[] = []
    page.on('response', (res) => {
      if (res.url().startsWith(`${service}/plan/refresh`)) answers.push(res.status())
    })
    await page.goto(attackerUrl)
    await page.evaluate(
      `fetch(${JSON.stringify(`${service}/plan/refresh?date=${date}`)}, { method: 'POST', mode: 'no-cors' })`,
    )
    await Promise.all([
      page.waitForURL((u) => u.href.startsWith(`${service}/plan/refresh`)),
      page.evaluate(`document.getElementById('f').submit()`),
    ])
    expect(await page.textContent('body')).toMatch(/"detail":".*may not change this service's state/)
    // the same page then opens /docs: Swagger UI renders under its CSP with nothing refused
    await page.goto(`${service}/docs/`)
    await page.locator('.opblock').first().waitFor()
    expect(errors.filter((e) => /Content Security Policy|Refused to/.test(e))).toEqual([])
    await close()

    expect(answers).toEqual([403, 403])
    expect(await readFile(planFile, 'utf8')).toBe(MARKER)
    expect(built.services.plans.cacheKeys()).toEqual(cached)

    const { stdout } = await execFileAsync('curl', ['-sS', '-X', 'POST', `${service}/plan/refresh?date=${date}`])
    expect(JSON.parse(stdout)).toMatchObject({ ok: true })
    expect(await readFile(planFile, 'utf8')).not.toBe(MARKER)
    expect(built.services.plans.cacheKeys()).toEqual([])
  }, 60_000)
})
