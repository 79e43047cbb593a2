/**
 * Security headers on the HTML page (`GET /`): a CSP that allows only the page's own script and style and
 * forbids framing, nosniff, frame options and a referrer policy; the page's own script, stylesheet and icon
 * are nosniff too, and nothing inline needs the CSP relaxed.
 */
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../support/app.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'

/** The CSP header as a map of directive to its sources. */
function directives(csp: string): Map<string, string[]> {
  return new Map(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((parts) => parts[0] !== '')
      .map(([name, ...sources]) => [name!.toLowerCase(), sources]),
  )
}

describe('security headers on the viewer page', () => {
  let t: TestDatabase
  let built: TestApp
  let app: FastifyInstance

  beforeAll(async () => {
    t = await createTestDatabase()
    built = await buildTestApp(t)
    app = built.app
  })
  afterAll(async () => {
    await built?.close()
    await t?.drop()
  })

  it('GET / sends a strict CSP, nosniff, frame options and a referrer policy', async () => {
    const res = await app.inject('/')
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(res.headers['x-content-type-options']).toBe('nosniff')
    expect(res.headers['x-frame-options']).toBe('DENY')
    expect(res.headers['referrer-policy']).toBe('no-referrer')

    const csp = directives(String(res.headers['content-security-policy']))
    expect(csp.get('default-src')).toEqual(["'none'"])
    expect(csp.get('script-src')).toEqual(["'self'"])
    expect(csp.get('style-src')).toEqual(["'self'"])
    expect(csp.get('frame-ancestors')).toEqual(["'none'"])
    expect(csp.get('base-uri')).toEqual(["'none'"])
    expect(csp.get('form-action')).toEqual(["'self'"])
    for (const sources of csp.values()) {
      for (const bad of ["'unsafe-inline'", "'unsafe-eval'", '*', 'data:', 'http:', 'https:'])
        expect(sources).not.toContain(bad)
    }
  })

  it('needs nothing inline: no inline script, style or event handler in the page', async () => {
    const page = (await app.inject('/')).body
    expect(page).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/i)
    expect(page).not.toMatch(/<style\b|\sstyle=|\son[a-z]+=|javascript:/i)
  })

  it("serves the page's script, stylesheet and icon with nosniff and their own types", async () => {
    for (const [url, type] of [
      ['/viewer.js', 'text/javascript; charset=utf-8'],
      ['/viewer.css', 'text/css; charset=utf-8'],
      ['/favicon.svg', 'image/svg+xml'],
    ] as const) {
      const res = await app.inject(url)
      expect(res.statusCode, url).toBe(200)
      expect(res.headers['content-type'], url).toBe(type)
      expect(res.headers['x-content-type-options'], url).toBe('nosniff')
    }
  })

  it('serves every module the page imports, from the entry down, each preloaded by the page', async () => {
    const page = (await app.inject('/')).body
    const preloaded = new Set([...page.matchAll(/<link rel="modulepreload" href="([^"]+)">/g)].map((m) => m[1]))
    const seen = new Set<string>()
    const pending = ['/viewer.js']
    while (pending.length > 0) {
      const url = pending.pop()!
      if (seen.has(url)) continue
      seen.add(url)
      const res = await app.inject(url)
      expect(res.statusCode, url).toBe(200)
      expect(res.headers['content-type'], url).toBe('text/javascript; charset=utf-8')
      expect(res.headers['x-content-type-options'], url).toBe('nosniff')
      for (const [, imported] of res.body.matchAll(/^import\s[^;]*?\sfrom '([^']+)'$/gm)) pending.push(imported!)
    }
    // the entry and its helpers: more than the one file it was
    expect(seen.size).toBeGreaterThan(10)
    expect(new Set([...seen].filter((u) => u !== '/viewer.js'))).toEqual(preloaded)
  })
})
