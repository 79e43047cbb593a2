/**
 * Writes a replay lets run while its next step computes (a day's tier rows are copied in while the plan is
 * assembled from the replay's memo of them). Each is awaited before the day counts as done, so a failed write
 * fails the day as it would have failed the step; a rejection is held until then, never unhandled.
 */
export function createWriteBehind() {
  let pending: Promise<unknown>[] = []
  return {
    defer(write: Promise<unknown>): void {
      write.catch(() => undefined)
      pending.push(write)
    },
    /** Waits for every deferred write; throws the first failure. */
    async flush(): Promise<void> {
      const writes = pending
      pending = []
      await Promise.all(writes)
    },
  }
}

export type WriteBehind = ReturnType<typeof createWriteBehind>
