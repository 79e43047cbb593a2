/**
 * An HTTP client in its own process for bench/loop-stall.bench.ts: the server's loop must not also run the client
 * (with `inject`, turning a 1 MB body into a string counted as the server's stall). Forked with IPC; each message
 * `{ id, url, count }` sends `count` GETs at once and answers `{ id, statuses }` once every body has arrived.
 */
interface Ask {
  readonly id: number
  readonly url: string
  readonly count: number
}

process.on('message', (ask: Ask) => {
  void Promise.all(
    Array.from({ length: ask.count }, async () => {
      const res = await fetch(ask.url)
      await res.arrayBuffer()
      return res.status
    }),
  ).then(
    (statuses) => process.send?.({ id: ask.id, statuses }),
    (err: unknown) => process.send?.({ id: ask.id, error: String(err) }),
  )
})
process.send?.({ ready: true })
