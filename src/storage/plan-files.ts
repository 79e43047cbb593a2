import { constants } from 'node:fs'
import { lstat, open } from 'node:fs/promises'
import path from 'node:path'
import type { FullPlan } from '../domain/plan-types.js'
import type { Market, Regime } from '../domain/regime.js'
import { writeFileAtomic } from './atomic-file.js'
import { snapshotViolation } from './snapshot-schema.js'

/** A snapshot larger than this is not read (a day's `_full` is about a megabyte). */
export const SNAPSHOT_MAX_BYTES = 64 * 1024 * 1024
/** A snapshot read that takes longer than this is abandoned (a slow or hung file system). */
export const SNAPSHOT_READ_MS = 2000

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
  if (e.code === 'ELOOP') return 'a symbolic link, refused'
  if (e.name === 'AbortError' || e.name === 'TimeoutError') return `not read within ${SNAPSHOT_READ_MS} ms`
  return `unreadable (${e.code ?? e.message})`
}

/**
 * The file's text, read only if it is a regular file within the size cap, and within the deadline. Opened
 * non-blocking, so a FIFO or a device in its place is refused at once instead of holding a thread forever.
 */
async function readRegularFile(file: string): Promise<{ ok: true; text: string } | { ok: false; reason: string }> {
  let handle: Awaited<ReturnType<typeof open>>
  try {
    // O_NOFOLLOW: a snapshot that is a symbolic link (to /etc/shadow, or to another user's forged file) is refused
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY | constants.O_NOFOLLOW)
  } catch (err) {
    return { ok: false, reason: describe(err) }
  }
  try {
    const info = await handle.stat()
    if (!info.isFile()) return { ok: false, reason: 'not a regular file' }
    if (info.size > SNAPSHOT_MAX_BYTES)
      return { ok: false, reason: `${info.size} bytes, over the ${SNAPSHOT_MAX_BYTES}-byte cap` }
    const text = await handle.readFile({ encoding: 'utf8', signal: AbortSignal.timeout(SNAPSHOT_READ_MS) })
    return { ok: true, text }
  } catch (err) {
    return { ok: false, reason: describe(err) }
  } finally {
    await handle.close().catch(() => undefined)
  }
}

const DISK_CAUSES: Record<string, string> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is exhausted',
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EIO: 'an I/O error',
  ENOTDIR: 'a path component is a regular file',
}

/** A plan-directory write that failed; the previous file is untouched (the writes are atomic). */
export class PlanWriteError extends Error {
  override name = 'PlanWriteError'
  readonly code: string | undefined
  constructor(file: string, root: string, err: unknown) {
    const code = (err as NodeJS.ErrnoException).code
    const cause = code && DISK_CAUSES[code] ? `${DISK_CAUSES[code]} (${code})` : (code ?? (err as Error).message)
    super(
      `cannot write ${file}: ${cause}; the previous file is unchanged. ` +
        `Free space or fix permissions under PLAN_DATA_DIR=${root}, or set PLAN_DATA_DIR to a writable directory, then retry`,
    )
    this.code = code
  }
}

/** The day's snapshot, with a reason for every way it can be unusable. */
export function parseSnapshot(text: string, date: string): SnapshotRead {
  if (text.trim() === '') return { ok: false, reason: 'empty file' }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (err) {
    // never the parser's message: it quotes the file's text, which may be anything the link pointed at
    const at = /position (\d+)/.exec((err as Error).message)?.[1]
    return { ok: false, reason: at === undefined ? 'corrupt JSON' : `corrupt JSON at byte ${at}` }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, reason: 'not a JSON object' }
  const snap = value as Partial<Snapshot>
  if (snap.date !== date) return { ok: false, reason: `holds date ${JSON.stringify(snap.date)}, not ${date}` }
  const full = snap._full as Partial<FullPlan> | undefined
  if (!full || typeof full !== 'object' || Array.isArray(full)) return { ok: false, reason: 'no valid _full section' }
  if (full.date !== date) return { ok: false, reason: `_full holds date ${JSON.stringify(full.date)}, not ${date}` }
  const violation = snapshotViolation(value)
  if (violation !== undefined) return { ok: false, reason: `fails the snapshot schema at ${violation}` }
  return { ok: true, snapshot: snap as Snapshot }
}

export function createPlanFiles(root: string) {
  const snapshotPath = (date: string): string => path.join(root, 'snapshots', `${assertDate(date)}.json`)
  const planPath = (date: string): string => path.join(root, 'plans', `${assertDate(date)}.md`)
  const poolPath = (date: string): string => path.join(root, 'pool', `${assertDate(date)}.json`)
  async function write(file: string, data: string): Promise<string> {
    try {
      await writeFileAtomic(file, data)
    } catch (err) {
      throw new PlanWriteError(file, root, err)
    }
    return file
  }
  return {
    root,
    snapshotPath,
    planPath,
    poolPath,
    async readSnapshot(date: string): Promise<SnapshotRead> {
      const read = await readRegularFile(snapshotPath(date))
      return read.ok ? parseSnapshot(read.text, date) : read
    },
    /** Identity of the snapshot file (size and mtime), or undefined when there is none. */
    async snapshotStamp(date: string): Promise<string | undefined> {
      try {
        const s = await lstat(snapshotPath(date))
        return `${s.size}:${s.mtimeMs}`
      } catch {
        return undefined
      }
    },
    /** How many codes `pool/<date>.json` holds; undefined when push-pool has not written it (or it is unreadable). */
    async poolSize(date: string): Promise<number | undefined> {
      const read = await readRegularFile(poolPath(date))
      if (!read.ok) return undefined
      try {
        const codes = (JSON.parse(read.text) as { codes?: unknown }).codes
        return Array.isArray(codes) ? codes.length : undefined
      } catch {
        return undefined
      }
    },
    writeSnapshot: (date: string, json: string): Promise<string> => write(snapshotPath(date), json),
    writePlan: (date: string, markdown: string): Promise<string> => write(planPath(date), markdown),
    writePool: (date: string, json: string): Promise<string> => write(poolPath(date), json),
  }
}

export type PlanFiles = ReturnType<typeof createPlanFiles>
