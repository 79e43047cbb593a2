/** Long per-code loops in slices: the event loop gets a turn at least every `sliceMs` of work. */
export const SLICE_MS = 10

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/** `items.map(fn)`, yielding to the event loop between slices of about `sliceMs`. */
export async function mapInSlices<T, R>(
  items: readonly T[],
  fn: (item: T, index: number) => R,
  options: { sliceMs?: number; now?: () => number } = {},
): Promise<R[]> {
  const sliceMs = options.sliceMs ?? SLICE_MS
  const now = options.now ?? (() => performance.now())
  const out: R[] = new Array(items.length)
  let started = now()
  for (let i = 0; i < items.length; i++) {
    out[i] = fn(items[i]!, i)
    if (i + 1 < items.length && now() - started >= sliceMs) {
      await turn()
      started = now()
    }
  }
  return out
}
