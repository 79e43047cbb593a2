import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { FastifyPluginAsync, FastifyReply } from 'fastify'
import type { DemoMarker } from '../../storage/demo-marker.js'

export interface TrackRecordViewerOptions {
  /** The demo market the store holds, if any: the page then says what is planted in it. */
  readonly demoMarket: () => Promise<DemoMarker | undefined>
}

const DEMO_NOTE = '<p id="demo-note" class="notice" hidden></p>'

/** The page with its demo note shown: what the demo plants, or that the null market plants nothing. */
function withDemoNote(page: string, marker: DemoMarker): string {
  const key = marker.signal === 0 ? 'tr.demo_note_null' : 'tr.demo_note'
  return page.replace(DEMO_NOTE, `<p id="demo-note" class="notice" data-i18n="${key}"></p>`)
}

/** The page's own files; a compiled build reads them from `src/` (dist holds no copies). */
async function pageDir(): Promise<string> {
  const beside = fileURLToPath(new URL('../track-record/', import.meta.url))
  try {
    await readFile(`${beside}page.html`)
    return beside
  } catch {
    return fileURLToPath(new URL('../../../src/http/track-record/', import.meta.url))
  }
}

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

function send(reply: FastifyReply, type: string, body: string): FastifyReply {
  return reply
    .type(type)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-cache')
    .send(body)
}

/**
 * `GET /track-record`: charts of the track record (cumulative excess of `main`, daily rank IC, quintiles) and its
 * tables, drawn with uPlot served from the installed package (no CDN). Hidden from the OpenAPI document.
 */
const trackRecordViewerRoutes: FastifyPluginAsync<TrackRecordViewerOptions> = async (app, options) => {
  const dir = await pageDir()
  const uplotDir = path.dirname(createRequire(import.meta.url).resolve('uplot/dist/uPlot.iife.min.js'))
  const [page, script, style, uplotJs, uplotCss] = await Promise.all([
    readFile(`${dir}page.html`, 'utf8'),
    readFile(`${dir}track-record.js`, 'utf8'),
    readFile(`${dir}track-record.css`, 'utf8'),
    readFile(path.join(uplotDir, 'uPlot.iife.min.js'), 'utf8'),
    readFile(path.join(uplotDir, 'uPlot.min.css'), 'utf8'),
  ])
  const hide = { schema: { hide: true } }
  if (!page.includes(DEMO_NOTE)) throw new Error('track-record page.html lost its demo note element')
  app.get('/track-record', hide, async (_req, reply) => {
    const demo = await options.demoMarket()
    return send(
      reply.header('content-security-policy', CSP).header('x-frame-options', 'DENY'),
      'text/html; charset=utf-8',
      demo ? withDemoNote(page, demo) : page,
    )
  })
  app.get('/track-record.js', hide, async (_req, reply) => send(reply, 'text/javascript; charset=utf-8', script))
  app.get('/track-record.css', hide, async (_req, reply) => send(reply, 'text/css; charset=utf-8', style))
  app.get('/vendor/uplot.js', hide, async (_req, reply) => send(reply, 'text/javascript; charset=utf-8', uplotJs))
  app.get('/vendor/uplot.css', hide, async (_req, reply) => send(reply, 'text/css; charset=utf-8', uplotCss))
}

export default trackRecordViewerRoutes
