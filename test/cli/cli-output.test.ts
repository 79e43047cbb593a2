import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { progressLine, terminalProgress } from '../../src/cli/progress.js'
import { runCli } from '../support/cli-process.js'
import { createDemoDatabase, type DemoMarket } from '../support/demo-market.js'
import type { TestDatabase } from '../support/test-db.js'

const run = promisify(execFile)

async function stockplan(args: string[], env: Record<string, string>) {
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

/** A non-TTY stream that records what was written. */
function sink() {
  const lines: string[] = []
  const stream = {
    isTTY: false,
    write(chunk: string) {
      lines.push(chunk)
      return true
    },
  } as unknown as NodeJS.WriteStream
  return { lines, stream }
}

describe('progress in human units', () => {
  it('shows bytes as MB and items by their noun, with a rate', () => {
    expect(progressLine('bytes', 2_097_152, 11_104_251, 0.0892)).toBe('2.0/10.6 MB (18%), 22.4 MB/s, ETA 0s')
    expect(progressLine('stocks', 120, 800, 2)).toBe('120/800 stocks (15%), 60 stocks/s, ETA 11s')
  })

  it('shows a slow rate with one decimal, or seconds per item, and an ETA from what this run did', () => {
    // a replay at 3.6 s a day, resumed after 100 of 382 days: 10 more days in 36 s
    expect(progressLine('days', 110, 382, 36, 100)).toBe('110/382 days (28%), 0.3 days/s, ETA 16m19s')
    expect(progressLine('days', 2, 382, 25, 0)).toBe('2/382 days (0%), 12.5 s per day, ETA 1h19m')
    expect(progressLine('days', 382, 382, 100, 0)).toBe('382/382 days (100%), 3.8 days/s')
    const { lines, stream } = sink()
    let now = 0
    const progress = terminalProgress(stream, () => now)
    progress.start('replay', 20, 'days', 10)
    now += 3600
    progress.tick()
    expect(lines).toEqual(['replay: 11/20 days (55%), 0.3 days/s, ETA 32s\n'])
  })

  it('prints a line per tenth and the closing message once, as given (no file name twice)', () => {
    const { lines, stream } = sink()
    let now = 0
    const progress = terminalProgress(stream, () => now)
    progress.start('bars.csv', 10 * 1_048_576, 'bytes')
    for (let i = 0; i < 10; i++) {
      now += 100
      progress.tick(1_048_576)
    }
    progress.done('bars.csv: rolled back')
    expect(lines[0]).toBe('bars.csv: 1.0/10.0 MB (10%), 10.0 MB/s, ETA 1s\n')
    expect(lines).toHaveLength(11)
    expect(lines.at(-1)).toBe('bars.csv: rolled back\n')
  })
})

describe('stockplan output', () => {
  let t: TestDatabase
  let demo: DemoMarket
  let empty: string

  beforeAll(async () => {
    ;[t, demo] = await createDemoDatabase({ history: 1 })
    empty = await mkdtemp(path.join(os.tmpdir(), 'stockplan-empty-'))
  })
  afterAll(async () => {
    await rm(empty, { recursive: true, force: true })
    await demo.cleanup()
    await t.drop()
  })

  it('--help lists every command', async () => {
    const { code, stdout } = await stockplan(['--help'], {})
    expect(code).toBe(0)
    for (const command of ['serve', 'demo', 'import', 'build', 'plan', 'push-pool', 'chain', 'reconcile', 'db'])
      expect(stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'))
  })

  it('an empty import folder exits 1 and says what to do', async () => {
    const { code, stdout, stderr } = await stockplan(['import', '--dir', empty], {
      DATABASE_URL: t.url,
      ...demo.env,
    })
    expect(code).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toContain(`no input files in ${empty}`)
    expect(stderr).toContain('Put the exported CSV files in that folder')
  })

  it('a job writes NDJSON logs and step markers to stderr when it is not a terminal, its summary to stdout', async () => {
    const date = demo.planned.at(-1)!
    const { code, stdout, stderr } = await stockplan(['plan', '--date', date], {
      DATABASE_URL: t.url,
      LOG_LEVEL: 'info',
      ...demo.env,
    })
    expect(code).toBe(0)
    expect(stdout.trim()).toMatch(new RegExp(`^plan ${date}`))
    const lines = stderr.trim().split('\n')
    expect(lines[0]).toBe('[plan] start')
    expect(lines.at(-1)).toMatch(/^\[plan\] ok /)
    for (const line of lines.slice(1, -1)) expect(() => JSON.parse(line), line).not.toThrow()
  })

  it("a step asked to drain (the service's SIGUSR2) says so and finishes, exit 0", async () => {
    const date = demo.planned.at(-1)!
    const exit = await runCli(
      ['build', '--date', date],
      { DATABASE_URL: t.url, LOG_LEVEL: 'warn', ...demo.env },
      {
        // the step has started: the request lands while it runs
        onOutput: (output, child) => {
          if (output.includes('[build] start') && !output.includes('[build] ok')) child.kill('SIGUSR2')
        },
      },
    )
    expect({ code: exit.code, signal: exit.signal }, exit.output).toEqual({ code: 0, signal: null })
    const lines = exit.output.trim().split('\n')
    expect(lines[0]).toBe('[build] start')
    expect(lines).toContain('[build] drain requested by the service that started this run: finishing this step')
    expect(lines.find((l) => l.startsWith('[build] ok '))).toBeDefined()
    expect(lines.find((l) => l.startsWith(`build ${date}`))).toBeDefined()
  })
})
