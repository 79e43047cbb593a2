/** Thrown when a call to the store did not answer within its deadline. */
export class DeadlineError extends Error {
  override name = 'DeadlineError'
  readonly code = 'ETIMEDOUT'
}

/**
 * `work`, or a DeadlineError after `ms`: the caller answers in time while the work itself runs on (a frozen
 * store's query ends at its own statement timeout).
 */
export function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError(`${what} did not answer within ${ms} ms`)), ms)
    timer.unref()
  })
  work.catch(() => undefined) // a late failure after the deadline is not unhandled
  return Promise.race([work, expired]).finally(() => clearTimeout(timer))
}

/** One call in flight at a time, each caller bounded by the deadline: a frozen store ties up one connection. */
export function deadlineProbe<T>(
  probe: () => Promise<T>,
  ms: number,
  what: string,
): (deadlineMs?: number) => Promise<T> {
  let inflight: Promise<T> | undefined
  return (deadlineMs = ms) => {
    inflight ??= probe().finally(() => {
      inflight = undefined
    })
    return withDeadline(inflight, deadlineMs, what)
  }
}
