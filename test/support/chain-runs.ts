import { createRunStore } from '../../src/storage/run.repository.js'
import type { TestDatabase } from './test-db.js'

/** A scheduler run as the executor stores it: its step lines, then its result (which enqueues its callback). */
export async function storeRun(
  t: TestDatabase,
  logId: number,
  lines: [string, string, string][],
  result: { status: 'succeeded' | 'failed'; step: string; at: string },
) {
  const runs = createRunStore(t.db)
  const at = (iso: string) => new Date(iso)
  const start = at(lines[0]![0])
  await runs.insert({
    logId,
    jobId: 1,
    handler: 'dailyPlanChain',
    params: '',
    blockStrategy: 'SERIAL_EXECUTION',
    timeoutS: 0,
    logDateTime: start.getTime(),
    ownerId: 'test',
    ownerAddress: undefined,
    at: start,
  })
  await runs.markRunning(logId, 'test', start)
  for (const [when, step, text] of lines) await runs.appendLines(logId, step, [text], at(when))
  const code = result.status === 'succeeded' ? 200 : 500
  await runs.finish(
    logId,
    'test',
    { status: result.status, handleCode: code, handleMsg: '' },
    result.step,
    at(result.at),
  )
}
