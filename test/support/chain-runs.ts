import { createRunStore, type RunStore } from '../../src/storage/run.repository.js'
import type { TestDatabase } from './test-db.js'

/** A chain run of `owner`, triggered and running since `at`, as the executor stores it. */
export async function startRun(runs: RunStore, logId: number, owner: string, at: Date): Promise<void> {
  await runs.insert({
    logId,
    jobId: 1,
    handler: 'dailyPlanChain',
    params: '',
    blockStrategy: 'SERIAL_EXECUTION',
    timeoutS: 0,
    logDateTime: at.getTime(),
    ownerId: owner,
    ownerAddress: undefined,
    at,
  })
  await runs.markRunning(logId, owner, at)
}

/** A scheduler run as the executor stores it: its step lines, then its result (which enqueues its callback). */
export async function storeRun(
  t: TestDatabase,
  logId: number,
  lines: [string, string, string][],
  result: { status: 'succeeded' | 'failed'; step: string; at: string },
) {
  const runs = createRunStore(t.db)
  const at = (iso: string) => new Date(iso)
  await startRun(runs, logId, 'test', at(lines[0]![0]))
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
