/**
 * `promise`, or an error naming `what` once `ms` have passed: for a test's own waits outside a library's timeouts
 * (a server's start or close, a socket's end), so that a hang fails by its name instead of as the test's timeout.
 */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: still waiting after ${ms} ms`)), ms)
  })
  return Promise.race([promise, late]).finally(() => clearTimeout(timer))
}

/** Polls `check` every 10 ms until it returns a value other than undefined or false; `what` names it on a timeout. */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  timeoutMs = 5_000,
  what: string | (() => string) = 'condition',
): Promise<Exclude<T, false | undefined>> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined && value !== false) return value as Exclude<T, false | undefined>
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
