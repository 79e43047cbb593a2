import type { BlockStrategy } from './protocol.js'

/**
 * The in-process run registry: per XXL-JOB `jobId`, at most one running run and a FIFO queue (the Java executor's
 * JobThread + trigger queue). Every method is synchronous, so an admission decision and the slot change it implies
 * happen at once, whatever else is in flight.
 */
export type Admission<R> =
  | { readonly kind: 'discard' }
  /** Queued. For COVER_EARLY, `covered` lists the runs the caller must stop: the running one and the former queue. */
  | { readonly kind: 'queued'; readonly covered: { readonly running: R | undefined; readonly queued: readonly R[] } }

export interface JobSlots<R> {
  admit(jobId: number, run: R, strategy: BlockStrategy): Admission<R>
  /** Moves the head of the queue into the free slot and returns it; undefined when busy or nothing waits. */
  next(jobId: number): R | undefined
  /** `next` for the job whose queue head has waited longest among jobs with a free slot (first come, first served). */
  nextReady(): R | undefined
  /** Frees the slot if `run` holds it. */
  release(jobId: number, run: R): void
  /** Empties the job's queue and returns what was in it. */
  takeQueue(jobId: number): R[]
  running(jobId: number): R | undefined
  busy(jobId: number): boolean
  allRunning(): R[]
  allQueued(): R[]
  counts(): { running: number; queued: number }
}

interface Slot<R> {
  running: R | undefined
  /** Each queued run with its admission number. */
  queue: R[]
  order: number[]
}

export function createJobSlots<R>(): JobSlots<R> {
  const slots = new Map<number, Slot<R>>()
  const slot = (jobId: number): Slot<R> => {
    let s = slots.get(jobId)
    if (!s) {
      s = { running: undefined, queue: [], order: [] }
      slots.set(jobId, s)
    }
    return s
  }
  const tidy = (jobId: number): void => {
    const s = slots.get(jobId)
    if (s && s.running === undefined && s.queue.length === 0) slots.delete(jobId)
  }
  let admissions = 0
  const take = (jobId: number, s: Slot<R>): R | undefined => {
    const run = s.queue.shift()
    s.order.shift()
    s.running = run
    tidy(jobId)
    return run
  }
  return {
    admit(jobId, run, strategy) {
      admissions += 1
      const s = slot(jobId)
      const busy = s.running !== undefined || s.queue.length > 0
      if (strategy === 'DISCARD_LATER' && busy) {
        tidy(jobId)
        return { kind: 'discard' }
      }
      if (strategy === 'COVER_EARLY' && busy) {
        const covered = { running: s.running, queued: s.queue }
        // the covered run keeps the slot until it has stopped; the new run goes first after it
        s.queue = [run]
        s.order = [admissions]
        return { kind: 'queued', covered }
      }
      s.queue.push(run)
      s.order.push(admissions)
      return { kind: 'queued', covered: { running: undefined, queued: [] } }
    },
    next(jobId) {
      const s = slots.get(jobId)
      if (!s || s.running !== undefined) return undefined
      return take(jobId, s)
    },
    nextReady() {
      let pick: [number, Slot<R>] | undefined
      for (const [jobId, s] of slots) {
        if (s.running !== undefined || s.queue.length === 0) continue
        if (!pick || (s.order[0] ?? 0) < (pick[1].order[0] ?? 0)) pick = [jobId, s]
      }
      return pick ? take(pick[0], pick[1]) : undefined
    },
    release(jobId, run) {
      const s = slots.get(jobId)
      if (s?.running === run) s.running = undefined
      tidy(jobId)
    },
    takeQueue(jobId) {
      const s = slots.get(jobId)
      if (!s) return []
      const queued = s.queue
      s.queue = []
      s.order = []
      tidy(jobId)
      return queued
    },
    running: (jobId) => slots.get(jobId)?.running,
    busy(jobId) {
      const s = slots.get(jobId)
      return s !== undefined && (s.running !== undefined || s.queue.length > 0)
    },
    allRunning: () => [...slots.values()].flatMap((s) => (s.running === undefined ? [] : [s.running])),
    allQueued: () => [...slots.values()].flatMap((s) => s.queue),
    counts() {
      let running = 0
      let queued = 0
      for (const s of slots.values()) {
        if (s.running !== undefined) running += 1
        queued += s.queue.length
      }
      return { running, queued }
    },
  }
}
