import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { reconcile, reconcileExitCode, reconcileLines } from '../../src/cli/reconcile.command.js'
import type { VerdictList } from '../../src/services/verdict.service.js'
import { buildTestApp, type TestApp } from '../support/app.js'
import { createDemoDatabase, type DemoMarket } from '../support/demo-market.js'
import type { TestDatabase } from '../support/test-db.js'

const run = promisify(execFile)

/** `node bin/stockplan.js ...` against the test database; resolves with the exit status instead of throwing. */
async function stockplan(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('node', ['bin/stockplan.js', ...args], {
      env: { ...process.env, ...env },
      timeout: 60_000,
    })
    return { code: 0, stdout, stderr }
  } catch (err) {
    const e = err as { code?: number; stdout: string; stderr: string }
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout, stderr: e.stderr }
  }
}

describe('stockplan reconcile', () => {
  let t: TestDatabase
  let demo: DemoMarket
  let built: TestApp
  let date: string
  let codes: string[]

  beforeAll(async () => {
    ;[t, demo] = await createDemoDatabase({ history: 2 })
    date = demo.planned[0]!
    built = await buildTestApp(t, demo.env)
    const plan = (await built.app.inject(`/plan?date=${date}`)).json()
    const tier = await t.db
      .selectFrom('tier_scores')
      .select('code')
      .where('trade_date', '=', date)
      .orderBy('rank', 'desc')
      .limit(3)
      .execute()
    // main, observe, reject and absent, in the three forms
    const main = plan.main[0].code as string
    const observe = plan.observe[0].code as string
    codes = [main, `${observe.slice(-2)}${observe.slice(0, 6)}`, tier[0]!.code.slice(0, 6), '600000']
  })
  afterAll(async () => {
    await built?.close()
    await demo?.cleanup()
    await t?.drop()
  })

  async function endpoint(list: string[], on = date): Promise<VerdictList> {
    const res = await built.app.inject(`/plan/verdict?date=${on}&codes=${list.join(',')}`)
    expect(res.statusCode).toBe(200)
    return res.json()
  }

  it('prints one line per code: input, decision and the endpoint verdict_text', async () => {
    const lines: string[] = []
    const notes: string[] = []
    const status = await reconcile(
      demo.services.verdicts,
      { codes, date },
      { line: (l) => lines.push(l), note: (n) => notes.push(n) },
    )
    const body = await endpoint(codes)
    expect(status).toBe(0)
    expect(lines).toEqual(
      body.verdicts.map((v) => ('error' in v ? '' : `${v.input}\t${v.decision}\t${v.verdict_text}`)),
    )
    expect(lines.map((l) => l.split('\t')[1])).toEqual(['main', 'observe', 'reject', 'absent'])
    expect(notes).toEqual([expect.stringContaining(`tier date ${date}`)])
  })

  it('--json prints the endpoint body; comma lists in arguments are split like the endpoint', async () => {
    const lines: string[] = []
    await reconcile(
      demo.services.verdicts,
      { codes: [codes.slice(0, 2).join(','), ...codes.slice(2)], json: true },
      { line: (l) => lines.push(l), note: () => undefined },
    )
    expect(lines).toHaveLength(1)
    const latest = demo.planned.at(-1)!
    expect(JSON.parse(lines[0]!)).toEqual(await endpoint(codes, latest))
  })

  it('exit status: 2 when a code is not understood, 1 for a per-stock data failure, else 0', () => {
    const base = { date, stale: '', count: 1 }
    const ok = { input: 'x', code: '600001.SH', decision: 'absent' } as unknown as VerdictList['verdicts'][number]
    expect(reconcileExitCode({ ...base, verdicts: [ok] })).toBe(0)
    expect(
      reconcileExitCode({ ...base, verdicts: [ok, { input: 'y', code: '600002.SH', error: 'TierDataError: x' }] }),
    ).toBe(1)
    expect(
      reconcileExitCode({
        ...base,
        verdicts: [
          { input: 'y', code: '600002.SH', error: 'E: x' },
          { input: 'z', error: 'bad' },
        ],
      }),
    ).toBe(2)
    expect(reconcileLines({ ...base, verdicts: [{ input: 'z', error: 'bad form' }] })).toEqual(['z\terror\tbad form'])
  })

  it('the installed command gives the endpoint text, and exits 2 for a code it does not understand', async () => {
    const env = { DATABASE_URL: t.url, PLAN_DATA_DIR: demo.planDataDir, LOG_LEVEL: 'warn' }
    const body = await endpoint([...codes, '12345'])
    const result = await stockplan(['reconcile', ...codes, '12345', '--date', date], env)
    expect(result.code, result.stderr).toBe(2)
    const lines = result.stdout.trimEnd().split('\n')
    expect(lines).toHaveLength(codes.length + 1)
    for (const [i, v] of body.verdicts.entries()) {
      const [input, decision, text] = lines[i]!.split('\t')
      expect(input).toBe(v.input)
      if ('error' in v) expect([decision, text]).toEqual(['error', v.error])
      else expect([decision, text]).toEqual([v.decision, v.verdict_text])
    }
    const json = await stockplan(['reconcile', ...codes, '--date', date, '--json'], env)
    expect(json.code, json.stderr).toBe(0)
    expect(JSON.parse(json.stdout)).toEqual(await endpoint(codes))
  })
})
