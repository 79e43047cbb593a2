/**
 * HTML in the data (a security name, a theme, a segment, an evidence text) never reaches the Markdown plan raw:
 * not through `GET /plan?format=md`, not in the plan file `POST /plan/refresh` writes, not in the file the plan
 * job writes; and for any text in any field the rendering keeps its table shape (no `<`, `>`, bare `|` or line
 * break from the data). The viewer page's escaping is tested in test/browser/.
 */
import { readFile } from 'node:fs/promises'
import fc from 'fast-check'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { renderPlanMarkdown } from '../../src/domain/markdown.js'
import type { PlanBody } from '../../src/domain/plan-types.js'
import type { Regime } from '../../src/domain/regime.js'
import { anyText } from '../support/any-text.js'
import { buildTestApp, type TestApp } from '../support/app.js'
import { createDemoDatabase, type DemoMarket } from '../support/demo-market.js'
import type { TestDatabase } from '../support/test-db.js'

const HOSTILE_NAME = '<img src=x onerror=alert(1)>'
const HOSTILE_EVIDENCE = '<script>alert(2)</script>'
const HOSTILE_THEME = '<svg onload=alert(3)>|x'
const HOSTILE_SEGMENT = '</td><iframe src=javascript:alert(4)>\nline'

/** No raw tag from the data: the template itself uses neither `<` nor `>`. */
function expectNoHtml(markdown: string): void {
  expect(markdown).not.toMatch(/[<>]/)
  expect(markdown).not.toMatch(/onerror=alert\(1\)>|<script|<img|<svg|<iframe/i)
}

/** GFM splits a table row at every `|` not escaped by a backslash. */
const cellsOf = (line: string): number => line.split(/(?<!\\)\|/).length - 2

function expectTableShape(markdown: string): void {
  for (const line of markdown.split('\n')) {
    if (line.startsWith('|')) expect(cellsOf(line), line).toBe(7)
  }
}

describe('HTML in the data is escaped in the Markdown', () => {
  let t: TestDatabase
  let demo: DemoMarket
  let built: TestApp
  let date: string
  let target: string
  const signal = new AbortController().signal

  beforeAll(async () => {
    ;[t, demo] = await createDemoDatabase({ stocks: 150, days: 70, history: 2 })
    date = demo.planned.at(-1)!
    built = await buildTestApp(t, demo.env)
    const plan = (await built.app.inject(`/plan?date=${date}`)).json() as {
      main: Array<{ code: string; graph_evidence: unknown[] }>
    }
    target = (plan.main.find((r) => r.graph_evidence.length > 0) ?? plan.main[0]!).code
    await sql`
      update tier_scores set name = ${HOSTILE_NAME}, theme = ${HOSTILE_THEME}, segment = ${HOSTILE_SEGMENT},
        graph_evidence = case when jsonb_array_length(graph_evidence) > 0
          then jsonb_set(graph_evidence, '{0,evidence}', to_jsonb(${HOSTILE_EVIDENCE}::text)) else graph_evidence end
      where trade_date = ${date} and code = ${target}`.execute(t.db)
    await sql`update securities set name = ${HOSTILE_NAME} where code = ${target}`.execute(t.db)
    // the plan job rewrites the day's snapshot and plan file from the hostile rows
    await demo.services.steps.plan({ date }, signal)
  })
  afterAll(async () => {
    await built?.close()
    await demo?.cleanup()
    await t?.drop()
  })

  it('serves the hostile row in JSON as data and escaped in GET /plan?format=md', async () => {
    const json = await built.app.inject(`/plan?date=${date}&nocache=1`)
    const row = (json.json() as { main: Array<{ code: string; name: string; theme: string }> }).main.find(
      (r) => r.code === target,
    )
    expect(row).toMatchObject({ name: HOSTILE_NAME, theme: HOSTILE_THEME })
    expect(json.headers['content-type']).toMatch(/^application\/json/)

    const md = await built.app.inject(`/plan?date=${date}&format=md&nocache=1`)
    expect(md.statusCode).toBe(200)
    expect(md.headers['content-type']).toBe('text/markdown; charset=utf-8')
    expectNoHtml(md.body)
    expectTableShape(md.body)
    expect(md.body).toContain('&lt;img src=x onerror=alert(1)&gt;')
    expect(md.body).toContain('&lt;svg onload=alert(3)&gt;\\|x')
  })

  it('escapes it in the plan file POST /plan/refresh writes and in the one the plan job wrote', async () => {
    const jobFile = await readFile(demo.services.files.planPath(date), 'utf8')
    expectNoHtml(jobFile)
    expect(jobFile).toContain('&lt;img src=x onerror=alert(1)&gt;')

    const res = await built.app.inject({ method: 'POST', url: `/plan/refresh?date=${date}` })
    expect(res.statusCode).toBe(200)
    const file = await readFile(res.json().file as string, 'utf8')
    expectNoHtml(file)
    expectTableShape(file)
    expect(file).toContain('&lt;img src=x onerror=alert(1)&gt;')
    expect(file).toContain(`&lt;/td&gt;&lt;iframe src=javascript:alert(4)&gt; line`)
  })

  it('renders any text in any field without HTML, bare pipes or line breaks from the data', async () => {
    const base = (await built.app.inject(`/plan?date=${date}&top=5&obs_top=3`)).json() as PlanBody
    const text = fc.oneof(
      anyText({ maxLength: 30 }),
      fc
        .array(
          fc.constantFrom('<', '>', '&', '|', '\\', '\n', '\r', '\r\n', '`', '*', '_', '#', 'a', ' ', '&lt;', '"'),
          {
            maxLength: 15,
          },
        )
        .map((parts) => parts.join('')),
    )
    const benign = renderPlanMarkdown(base, { status: 'x', weak_day: null, source: 'y' } as unknown as Regime, {})
    await fc.assert(
      fc.property(fc.array(text, { minLength: 8, maxLength: 8 }), ([a, b, c, d, e, f, g, h]) => {
        const plan: PlanBody = {
          ...base,
          plan_version: a!,
          generated_at: b!,
          main: base.main.map((r) => ({ ...r, name: c!, theme: d!, verdict_text: e! })),
          observe: base.observe.map((r) => ({ ...r, code: f!, name: c! })),
          segments_pointed: base.segments_pointed.map((s) => ({ ...s, theme: d!, segment: g!, codes: [f!] })),
          watch: base.watch.map((w) => ({ ...w, name: h!, text: e! })),
        }
        const markdown = renderPlanMarkdown(plan, { status: g!, weak_day: null, source: h! } as unknown as Regime, {})
        expectNoHtml(markdown)
        expectTableShape(markdown)
        expect(markdown.split('\n')).toHaveLength(benign.split('\n').length)
      }),
      { numRuns: 200 },
    )
  })
})
