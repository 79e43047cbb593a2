import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { textLines, toLogResult } from '../../src/scheduler/run-log.js'
import { createRunStore, type RunStore } from '../../src/storage/run.repository.js'
import { startRun } from '../support/chain-runs.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'

let t: TestDatabase
let runs: RunStore

beforeAll(async () => {
  t = await createTestDatabase()
  runs = createRunStore(t.db)
})
afterAll(async () => {
  await t.drop()
})

const OWNER = 'log-paging-test'
const APPENDS = 400

/** The admin's log page (`joblog.detail.js`): after a page with `fromLineNum <= toLineNum`, asks from `toLineNum + 1`. */
async function pageLikeTheAdmin(logId: number): Promise<{ lines: string[]; pages: number }> {
  const lines: string[] = []
  let from = 1
  let pages = 0
  for (;;) {
    const page = toLogResult(from, await runs.readLog(logId, from, 1000))
    pages += 1
    if (page.fromLineNum <= page.toLineNum) {
      lines.push(...textLines(page.logContent))
      from = page.toLineNum + 1
    }
    if (page.isEnd) return { lines, pages }
  }
}

describe('POST /log paged while the run writes', () => {
  it('loses no line: the concatenated pages are the stored log, line for line', async () => {
    const logId = 7_300_001
    await startRun(runs, logId, OWNER, new Date())
    // one line per append, many of them: each commit lands between a page read and its line count when they are
    // two reads, which is the race the admin's page turns into a skipped line
    const writing = (async () => {
      for (let i = 1; i <= APPENDS; i += 1) await runs.appendLines(logId, 'build', [`line ${i}`], new Date())
      await runs.finish(logId, OWNER, { status: 'succeeded', handleCode: 200, handleMsg: 'ok' }, null, new Date())
    })()
    const [paged] = await Promise.all([pageLikeTheAdmin(logId), writing])

    const stored = toLogResult(1, await runs.readLog(logId, 1, APPENDS + 10))
    expect(textLines(stored.logContent)).toHaveLength(APPENDS)
    expect(paged.pages).toBeGreaterThan(10)
    expect(paged.lines).toEqual(textLines(stored.logContent))
  })

  it('answers a page past the end with toLineNum = fromLineNum - 1 and no content', async () => {
    const logId = 7_300_002
    await startRun(runs, logId, OWNER, new Date())
    await runs.appendLines(logId, 'build', ['a', 'b', 'c'], new Date())
    expect(toLogResult(4, await runs.readLog(logId, 4, 1000))).toEqual({
      fromLineNum: 4,
      toLineNum: 3,
      logContent: '',
      isEnd: false,
    })
    const tail = toLogResult(3, await runs.readLog(logId, 3, 1000))
    expect(tail).toMatchObject({ fromLineNum: 3, toLineNum: 3, isEnd: false })
    expect(tail.logContent).toMatch(/ \[build\] c\n$/)
  })
})
