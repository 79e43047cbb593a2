import { readFile, stat } from 'node:fs/promises'
import path from 'node:path'
import type { FullPlan } from '../domain/plan-types.js'
import type { Market, Regime } from '../domain/regime.js'
import { writeFileAtomic } from './atomic-file.js'

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/

export interface Snapshot {
  readonly date: string
  readonly regime?: Regime
  readonly market?: Market
  readonly _full: FullPlan
  readonly [key: string]: unknown
}

export type SnapshotRead =
  | { readonly ok: true; readonly snapshot: Snapshot }
  | { readonly ok: false; readonly reason: string }

/** Only a validated `YYYY-MM-DD` ever becomes part of a path. */
function assertDate(date: string): string {
  if (!ISO_DATE.test(date)) throw new Error(`not an ISO date: ${JSON.stringify(date)}`)
  return date
}

function describe(err: unknown): string {
  const e = err as NodeJS.ErrnoException
  if (e.code === 'ENOENT') return 'missing'
  if (e.code === 'EACCES' || e.code === 'EPERM') return `unreadable (${e.code})`
  return `unreadable (${e.code ?? e.message})`
}

/** The day's snapshot, with a reason for every way it can be unusable. */
export function parseSnapshot(text: string, date: string): SnapshotRead {
  if (text.trim() === '') return { ok: false, reason: 'empty file' }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (err) {
    return { ok: false, reason: `corrupt JSON (${(err as Error).message})` }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, reason: 'not a JSON object' }
  const snap = value as Partial<Snapshot>
  if (snap.date !== date) return { ok: false, reason: `holds date ${JSON.stringify(snap.date)}, not ${date}` }
  const full = snap._full as Partial<FullPlan> | undefined
  if (!full || typeof full !== 'object' || !Array.isArray(full.rows) || full.date !== date) {
    return { ok: false, reason: 'no valid _full section' }
  }
  if (
    typeof full.plan_version !== 'string' ||
    typeof full.generated_at !== 'string' ||
    !full.tier_counts ||
    !full.screen_counts
  ) {
    return { ok: false, reason: '_full section is incomplete' }
  }
  return { ok: true, snapshot: snap as Snapshot }
}

export function createPlanFiles(root: string) {
  const snapshotPath = (date: string): string => path.join(root, 'snapshots', `${assertDate(date)}.json`)
  const planPath = (date: string): string => path.join(root, 'plans', `${assertDate(date)}.md`)
  const poolPath = (date: string): string => path.join(root, 'pool', `${assertDate(date)}.json`)
  return {
    root,
    snapshotPath,
    planPath,
    poolPath,
    async readSnapshot(date: string): Promise<SnapshotRead> {
      let text: string
      try {
        text = await readFile(snapshotPath(date), 'utf8')
      } catch (err) {
        return { ok: false, reason: describe(err) }
      }
      return parseSnapshot(text, date)
    },
    /** Identity of the snapshot file (size and mtime), or undefined when there is none. */
    async snapshotStamp(date: string): Promise<string | undefined> {
      try {
        const s = await stat(snapshotPath(date))
        return `${s.size}:${s.mtimeMs}`
      } catch {
        return undefined
      }
    },
    writeSnapshot: (date: string, json: string): Promise<void> => writeFileAtomic(snapshotPath(date), json),
    async writePlan(date: string, markdown: string): Promise<string> {
      const file = planPath(date)
      await writeFileAtomic(file, markdown)
      return file
    },
    async writePool(date: string, json: string): Promise<string> {
      const file = poolPath(date)
      await writeFileAtomic(file, json)
      return file
    },
  }
}

export type PlanFiles = ReturnType<typeof createPlanFiles>
