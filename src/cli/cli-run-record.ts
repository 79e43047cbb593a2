import os from 'node:os'
import { ChainStepError } from '../jobs/chain.job.js'
import type { Db } from '../storage/db.js'
import { createRunStore } from '../storage/run.repository.js'

/**
 * A CLI run's record (`chain`, or one step: `build`, `plan`, `push-pool`), written when it ends (a run record left
 * `running` would look like a dead executor's orphan): its step lines as the scheduler keeps them, so a rerun by hand
 * (the runbook's fix) counts as the step's last success or failure in /metrics. Writing it never fails the command: a
 * store that refuses it is said on stderr.
 */
export async function startCliRunRecord(db: Db, command: string, date: string | undefined) {
  const startedAt = new Date()
  const lines: { at: Date; step: string; text: string }[] = []
  let lastStep: string | null = null
  return {
    step(step: string, event: 'start' | 'ok', detail?: string): void {
      lines.push({ at: new Date(), step, text: detail === undefined ? event : `${event} ${detail}` })
      lastStep = step
    },
    async finish(outcome: { ok: true; summary: string } | { ok: false; error: unknown }): Promise<void> {
      const failedIn = !outcome.ok && outcome.error instanceof ChainStepError ? outcome.error.step : lastStep
      const message = outcome.ok ? outcome.summary : String((outcome.error as Error)?.message ?? outcome.error)
      try {
        await createRunStore(db).recordCliRun({
          handler: `cli:${command}`,
          params: JSON.stringify(date === undefined ? {} : { tradeDate: date }),
          ownerId: `cli:${os.hostname()}:${process.pid}`,
          status: outcome.ok ? 'succeeded' : 'failed',
          step: outcome.ok ? lastStep : failedIn,
          handleMsg: message.slice(0, 2000),
          startedAt,
          finishedAt: new Date(),
          lines,
        })
      } catch (err) {
        process.stderr.write(`the run record was not kept: ${(err as Error).message}\n`)
      }
    },
  }
}
