/** Cancellation shared by every layer: jobs, storage and the scheduler stop on the same error. */

export class JobAbortedError extends Error {
  override name = 'JobAbortedError'
}

/** Throws when the signal fired; long work calls it between units of work. */
export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) {
    const reason: unknown = signal.reason
    throw reason instanceof Error ? reason : new JobAbortedError(String(reason ?? 'aborted'))
  }
}
