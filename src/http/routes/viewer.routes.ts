import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import type { FastifyPluginAsync, FastifyReply } from 'fastify'
import { VOCABULARY } from '../../domain/vocabulary.js'

export interface ViewerDeps {
  /** The application version shown in the page footer. */
  readonly version: string
}

/** The viewer's own files; `dist/` holds no copies, so a compiled build reads them from `src/`. */
function viewerDir(): string {
  for (const relative of ['../viewer/', '../../../src/http/viewer/']) {
    const dir = fileURLToPath(new URL(relative, import.meta.url))
    if (existsSync(`${dir}page.html`)) return dir
  }
  throw new Error(`the viewer's files (page.html) are not beside ${fileURLToPath(import.meta.url)}`)
}

const HTML_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

/** The viewer's ES modules: `viewer.js` is the entry page.html loads; the others are the panels and helpers. */
const VIEWER_MODULES = [
  'viewer.js',
  'dom.js',
  'state.js',
  'i18n.js',
  'rules.js',
  'table.js',
  'score-words.js',
  'page-text.js',
  'plan-loader.js',
  'plan-summary.js',
  'plan-columns.js',
  'plan-filters.js',
  'plan-export.js',
  'plan-tables.js',
  'changes.js',
  'lookup.js',
  'stock-panel.js',
  'stock-chart.js',
]

/** One `modulepreload` per module and `/vocabulary.js`: the browser fetches them all at once, not import by import. */
function modulePreloads(): string {
  return [...VIEWER_MODULES.slice(1), 'vocabulary.js']
    .map((f) => `<link rel="modulepreload" href="/${f}">`)
    .join('\n  ')
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c)

function common(reply: FastifyReply, type: string): FastifyReply {
  return reply
    .type(type)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-cache')
}

/** `GET /`: the plan viewer page, plus its script, stylesheet and icon. Hidden from the OpenAPI document. */
const viewerRoutes: FastifyPluginAsync<ViewerDeps> = async (app, deps) => {
  const dir = viewerDir()
  const [template, style, icon] = await Promise.all(
    ['page.html', 'viewer.css', 'favicon.svg'].map((f) => readFile(`${dir}${f}`, 'utf8')),
  )
  // the page's modules, read once here and served from memory; the track record page imports i18n.js too
  const modules = await Promise.all(VIEWER_MODULES.map(async (f) => [f, await readFile(`${dir}${f}`, 'utf8')] as const))
  const page = template!
    .replaceAll('{{version}}', escapeHtml(deps.version))
    .replace('{{module-preloads}}', modulePreloads())
  // the one vocabulary (also the Markdown plan's), as the module both pages import
  const vocabulary = `export const VOCABULARY = ${JSON.stringify(VOCABULARY)}\n`

  app.get('/', { schema: { hide: true } }, async (_req, reply) =>
    common(reply, 'text/html; charset=utf-8')
      .header('content-security-policy', HTML_CSP)
      .header('x-frame-options', 'DENY')
      .send(page),
  )
  for (const [file, script] of modules)
    app.get(`/${file}`, { schema: { hide: true } }, async (_req, reply) =>
      common(reply, 'text/javascript; charset=utf-8').send(script),
    )
  app.get('/vocabulary.js', { schema: { hide: true } }, async (_req, reply) =>
    common(reply, 'text/javascript; charset=utf-8').send(vocabulary),
  )
  app.get('/viewer.css', { schema: { hide: true } }, async (_req, reply) =>
    common(reply, 'text/css; charset=utf-8').send(style),
  )
  app.get('/favicon.svg', { schema: { hide: true } }, async (_req, reply) => common(reply, 'image/svg+xml').send(icon))
}

export default viewerRoutes
