/**
 * Long per-code loops in slices: the event loop gets a turn at least every `sliceMs` of work.
 *
 * The slices of all loops running at once take turns: at most one slice runs per event-loop iteration (the
 * others wait in a queue, round robin), so I/O callbacks (a `/health` probe, a database reply) run between any
 * two slices however many requests are slicing. Yielding per loop with its own `setImmediate` would not do
 * this: the immediates of eight concurrent loops all run in one check phase, eight slices in a row.
 */
export const SLICE_MS = 5

/** Loops waiting for their next slice, oldest first. */
const waiting: Array<() => void> = []
/** A slice ran or is due in this event-loop iteration; a turn (below) is scheduled while this is true. */
let busy = false

/** One waiting loop's slice per check phase, so each of them is an event-loop iteration apart. */
function turn(): void {
  const next = waiting.shift()
  if (!next) {
    busy = false
    return
  }
  setImmediate(turn)
  next()
}

/** After a slice that did not wait for its turn: the waiting loops go on from the next iteration. */
function release(): void {
  if (waiting.length > 0) setImmediate(turn)
  else busy = false
}

function claim(): void {
  busy = true
  setImmediate(release)
}

/** Waits for this loop's next slice: a later event-loop iteration, after the loops queued before it. */
function nextSlice(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve)
    if (!busy) claim()
  })
}

/** `items.map(fn)` in slices of about `sliceMs`, sharing the event loop with every other sliced loop. */
export async function mapInSlices<T, R>(
  items: readonly T[],
  fn: (item: T, index: number) => R,
  options: { sliceMs?: number; now?: () => number } = {},
): Promise<R[]> {
  const sliceMs = options.sliceMs ?? SLICE_MS
  const now = options.now ?? (() => performance.now())
  const out: R[] = new Array(items.length)
  if (items.length === 0) return out
  // another loop's slice ran or is due this iteration: queue behind it; else this iteration's slice is ours
  if (busy) await nextSlice()
  else claim()
  let started = now()
  for (let i = 0; i < items.length; i++) {
    out[i] = fn(items[i]!, i)
    if (i + 1 < items.length && now() - started >= sliceMs) {
      await nextSlice()
      started = now()
    }
  }
  return out
}
