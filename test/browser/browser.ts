import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import { type Browser, chromium, type Page } from 'playwright-core'

/**
 * Debian's Chromium headless shell (the old headless mode, built for automation): the same Blink as the full browser
 * without its browser UI, about a third less CPU for these tests (viewer.test.ts: 18-21 s of Chromium CPU against
 * 27-29 s). CHROMIUM_PATH may name the full browser.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell'
export const SCREENSHOTS = path.resolve(process.env.SCREENSHOTS_DIR ?? 'screenshots')

/** Debian's Chromium headless shell; `npm test`'s pretest and `.ci/run` install it with apt-get when absent. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
}

export interface OpenedPage {
  readonly page: Page
  /** Console errors, uncaught exceptions and failed requests seen so far. */
  readonly errors: string[]
  close(): Promise<void>
}

/** A fresh context at the given viewport, recording every console error and page exception. */
export async function openPage(
  browser: Browser,
  viewport = { width: 1280, height: 900 },
  locale = 'en-US',
): Promise<OpenedPage> {
  const context = await browser.newContext({ viewport, locale })
  const page = await context.newPage()
  // under the test's own 60 s: a step that hangs fails by its name (the navigation, the locator) instead
  page.setDefaultTimeout(20_000)
  const errors: string[] = []
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(`console: ${msg.text()}`)
  })
  page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`))
  page.on('response', (res) => {
    if (res.status() >= 400) errors.push(`http ${res.status()}: ${res.url()}`)
  })
  page.on('requestfailed', (req) => errors.push(`requestfailed: ${req.url()} ${req.failure()?.errorText ?? ''}`))
  return { page, errors, close: () => context.close() }
}

/**
 * Pages kept open across tests, one per viewport and locale: a new page costs Chromium a renderer process (about
 * 0.5 s of CPU here), a navigation in a kept one about 0.2 s. `open` hands the kept page back blank, with no
 * routes, media emulation, cookies or errors; `release` (after each test) clears the storage of the origin it is on.
 */
export function createPagePool(browser: Browser) {
  const kept = new Map<string, OpenedPage>()
  return {
    async open(viewport = { width: 1280, height: 900 }, locale = 'en-US'): Promise<OpenedPage> {
      const key = `${viewport.width}x${viewport.height} ${locale}`
      let opened = kept.get(key)
      if (!opened) {
        opened = await openPage(browser, viewport, locale)
        kept.set(key, opened)
        return opened
      }
      const { page, errors } = opened
      await page.unrouteAll({ behavior: 'ignoreErrors' })
      await page.emulateMedia({ media: null })
      await page.context().clearCookies()
      await page.goto('about:blank')
      errors.length = 0
      return opened
    },
    async release(): Promise<void> {
      for (const { page } of kept.values()) {
        if (!page.url().startsWith('http')) continue
        await page.evaluate('localStorage.clear(); sessionStorage.clear()').catch(() => undefined) // a page whose server is gone
      }
    },
    async close(): Promise<void> {
      for (const opened of kept.values()) await opened.close().catch(() => undefined)
      kept.clear()
    },
  }
}

/** Navigates and waits until the viewer has rendered a plan (it marks the body with the loaded date). */
export async function loadViewer(page: Page, url: string): Promise<string> {
  await page.goto(url)
  await page.locator('body[data-loaded-date]').waitFor()
  return (await page.locator('body').getAttribute('data-loaded-date')) ?? ''
}

export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(SCREENSHOTS, { recursive: true })
  const file = path.join(SCREENSHOTS, name)
  await page.screenshot({ path: file, fullPage: true })
  return file
}
