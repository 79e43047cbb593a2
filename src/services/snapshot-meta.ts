import { type Market, type Regime, regimeWithoutSnapshot } from '../domain/regime.js'
import type { Logger } from '../logger.js'
import type { PlanFiles } from '../storage/plan-files.js'

export interface SnapshotMeta {
  readonly present: boolean
  readonly regime: Regime
  readonly market: Market | Record<string, never>
  /** Pre-serialised tail of a plan response: `,"snapshot":...,"regime":...,"market":...}`. */
  readonly jsonTail: string
}

const RECHECK_MS = 1000
const MAX_DATES = 16

/**
 * The per-request part of a plan (snapshot presence, regime, market), read from the day's snapshot. The file is
 * re-checked (stat) at most once a second per date and re-read only when its size or mtime changed.
 */
export function createSnapshotMeta(deps: { files: PlanFiles; log: Logger; now?: () => number }) {
  const now = deps.now ?? Date.now
  const cache = new Map<string, { meta: SnapshotMeta; stamp: string | undefined; checkedAt: number }>()

  function build(date: string, present: boolean, regime: Regime | undefined, market: Market | undefined): SnapshotMeta {
    const r = regime ?? regimeWithoutSnapshot(date)
    const m = market ?? {}
    const tail = `,"snapshot":${JSON.stringify(present ? 'present' : 'missing')},"regime":${JSON.stringify(r)},"market":${JSON.stringify(m)}}`
    return { present, regime: r, market: m, jsonTail: tail }
  }

  async function read(date: string, stamp: string | undefined): Promise<SnapshotMeta> {
    if (stamp === undefined) return build(date, false, undefined, undefined)
    const result = await deps.files.readSnapshot(date)
    if (!result.ok) return build(date, result.reason !== 'missing', undefined, undefined)
    const { regime, market } = result.snapshot
    const validRegime = regime && typeof regime === 'object' && typeof regime.status === 'string' ? regime : undefined
    const validMarket = market && typeof market === 'object' && !Array.isArray(market) ? market : undefined
    return build(date, true, validRegime, validRegime ? validMarket : undefined)
  }

  return {
    async get(date: string): Promise<SnapshotMeta> {
      const cached = cache.get(date)
      if (cached && now() - cached.checkedAt < RECHECK_MS) return cached.meta
      const stamp = await deps.files.snapshotStamp(date)
      if (cached && cached.stamp === stamp) {
        cached.checkedAt = now()
        return cached.meta
      }
      const meta = await read(date, stamp)
      cache.delete(date)
      cache.set(date, { meta, stamp, checkedAt: now() })
      if (cache.size > MAX_DATES) cache.delete(cache.keys().next().value as string)
      return meta
    },
    /** The date's meta when it was checked less than a second ago (what `get` would answer without I/O). */
    peek(date: string): SnapshotMeta | undefined {
      const cached = cache.get(date)
      return cached && now() - cached.checkedAt < RECHECK_MS ? cached.meta : undefined
    },
    forget(date?: string): void {
      if (date === undefined) cache.clear()
      else cache.delete(date)
    },
  }
}

export type SnapshotMetaReader = ReturnType<typeof createSnapshotMeta>
