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
