import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, readdir, readFile, rm, truncate, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeFileAtomic } from '../../src/storage/atomic-file.js'
import { createPlanFiles, parseSnapshot, SNAPSHOT_MAX_BYTES } from '../../src/storage/plan-files.js'

describe('atomic files and plan files', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'stockplan-files-'))
  })
  afterAll(async () => rm(dir, { recursive: true, force: true }))

  it('replaces a file whole and leaves no temp file behind', async () => {
    const file = path.join(dir, 'a', 'x.json')
    await writeFileAtomic(file, 'one')
    await writeFileAtomic(file, 'two')
    expect(await readFile(file, 'utf8')).toBe('two')
    expect(await readdir(path.dirname(file))).toEqual(['x.json'])
  })

  it('keeps the old file and cleans up when the write fails', async () => {
    const file = path.join(dir, 'b', 'y.json')
    await writeFileAtomic(file, 'old')
    await expect(writeFileAtomic(file, { bad: true } as unknown as string)).rejects.toThrow()
    expect(await readFile(file, 'utf8')).toBe('old')
    expect(await readdir(path.dirname(file))).toEqual(['y.json'])
  })

  it('never turns anything but a YYYY-MM-DD date into a path', () => {
    const files = createPlanFiles(dir)
    for (const bad of ['../etc/passwd', '2026-11-20/../../x', '2026-1-2', '', '2026-11-20\u0000']) {
      expect(() => files.snapshotPath(bad)).toThrow(/not an ISO date/)
      expect(() => files.planPath(bad)).toThrow(/not an ISO date/)
    }
    expect(files.snapshotPath('2026-11-20')).toBe(path.join(dir, 'snapshots', '2026-11-20.json'))
  })

  it.each([
    ['', /empty/],
    ['{"date":', /corrupt JSON/],
    ['[]', /not a JSON object/],
    ['{"date":"2026-11-19","_full":{}}', /holds date "2026-11-19"/],
    ['{"date":"2026-11-20"}', /no valid _full/],
    ['{"date":"2026-11-20","_full":{"date":"2026-11-20","rows":[]}}', /snapshot schema at \/_full: must have required/],
  ])('rejects snapshot text %j with a reason', (text, reason) => {
    const read = parseSnapshot(text, '2026-11-20')
    expect(read.ok).toBe(false)
    if (!read.ok) expect(read.reason).toMatch(reason)
  })

  it('refuses a FIFO in place of the snapshot at once instead of blocking on it', async () => {
    const files = createPlanFiles(dir)
    await mkdir(path.dirname(files.snapshotPath('2030-01-02')), { recursive: true })
    await new Promise<void>((resolve, reject) =>
      execFile('mkfifo', [files.snapshotPath('2030-01-02')], (err) => (err ? reject(err) : resolve())),
    )
    const started = performance.now()
    expect(await files.readSnapshot('2030-01-02')).toEqual({ ok: false, reason: 'not a regular file' })
    expect(performance.now() - started).toBeLessThan(500)
  })

  it('refuses a snapshot over the size cap without reading it', async () => {
    const files = createPlanFiles(dir)
    await writeFile(files.snapshotPath('2030-01-03'), '{')
    await truncate(files.snapshotPath('2030-01-03'), SNAPSHOT_MAX_BYTES + 1) // sparse: no real bytes written
    const read = await files.readSnapshot('2030-01-03')
    expect(read.ok).toBe(false)
    if (!read.ok) expect(read.reason).toMatch(/over the \d+-byte cap/)
  })

  it('rejects a snapshot that parses but holds null among its rows, naming where', () => {
    const full = {
      date: '2026-11-20',
      plan_version: '1',
      generated_at: '2026-11-20T08:00:00Z',
      rows: [null],
      tier_counts: { main: 1 },
      screen_counts: {},
      screened_reject: 0,
      prev_date: null,
      prev_main: [],
      prev_reasons: {},
      names: {},
    }
    const read = parseSnapshot(JSON.stringify({ date: '2026-11-20', _full: full }), '2026-11-20')
    expect(read.ok).toBe(false)
    if (!read.ok) expect(read.reason).toMatch(/snapshot schema at \/_full\/rows\/0/)
    const fixed = parseSnapshot(JSON.stringify({ date: '2026-11-20', _full: { ...full, rows: [] } }), '2026-11-20')
    expect(fixed.ok).toBe(true)
  })

  it('reports a missing snapshot as missing', async () => {
    const files = createPlanFiles(dir)
    expect(await files.readSnapshot('2030-01-01')).toEqual({ ok: false, reason: 'missing' })
  })
})
