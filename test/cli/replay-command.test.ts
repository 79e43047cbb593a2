import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../support/cli-process.js'
import { createDemoDatabase, type DemoMarket } from '../support/demo-market.js'
import type { TestDatabase } from '../support/test-db.js'

describe('stockplan replay (run in a worker thread)', () => {
  let t: TestDatabase
  let demo: DemoMarket
  beforeAll(async () => {
    ;[t, demo] = await createDemoDatabase({ history: 1 })
  })
  afterAll(async () => {
    await demo.cleanup()
    await t.drop()
  })

  const env = () => ({ DATABASE_URL: t.url, LOG_LEVEL: 'debug', ...demo.env })

  it("replays in a worker with the larger young generation; the main thread draws the worker's progress", async () => {
    const [from, to] = [demo.calendar.at(-4)!, demo.calendar.at(-2)!]
    const exit = await runCli(['replay', '--from', from, '--to', to], env(), { timeoutMs: 60_000 })
    expect({ code: exit.code, signal: exit.signal }, exit.output).toEqual({ code: 0, signal: null })
    const lines = exit.output.trim().split('\n')
    const started = lines.map((l) => (l.startsWith('{') ? JSON.parse(l) : {})).find((l) => l.youngGenerationMb)
    expect(started?.msg).toBe('replay running in a worker thread')
    expect(started?.youngGenerationMb).toBe(512)
    // not a terminal: the main thread's progress prints plain lines and the step's closing message once
    expect(lines.filter((l) => l.startsWith(`replay ${from}..${to}: 3/3 days (100%)`))).toHaveLength(1)
    expect(lines.filter((l) => l === '3 days replayed')).toHaveLength(1)
    // the worker's stdout reaches the process's: the summary, once
    expect(lines.filter((l) => l === `replay ${from}..${to}: 3 days replayed`)).toHaveLength(1)
  })

  it('SIGINT stops the worker between days: exit 1, "interrupted", and the next run resumes after the last day done', async () => {
    const [from, to] = [demo.calendar.at(-20)!, demo.calendar.at(-1)!]
    let sent = false
    const exit = await runCli(['replay', '--from', from, '--to', to, '--restart'], env(), {
      timeoutMs: 120_000,
      onOutput: (output, child) => {
        // the first day is done: the stop lands while the worker is replaying the next ones
        if (!sent && /"msg":"plan finished"/.test(output)) {
          sent = true
          child.kill('SIGINT')
        }
      },
    })
    expect({ code: exit.code, signal: exit.signal }, exit.output).toEqual({ code: 1, signal: null })
    expect(exit.output).toMatch(/error: .*interrupted/)
    expect(exit.output).not.toContain('20 days replayed')
    const resumed = await runCli(['replay', '--from', from, '--to', to], env(), { timeoutMs: 120_000 })
    expect(resumed.code, resumed.output).toBe(0)
    expect(resumed.output).toMatch(
      new RegExp(`replay ${from}\\.\\.${to}: \\d+ days replayed \\(resumed after \\d{4}-\\d{2}-\\d{2}\\)`),
    )
  })
})
