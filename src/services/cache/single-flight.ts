/** Collapses concurrent loads of one key into one promise; failures are shared but never kept. */
export class SingleFlight<V> {
  readonly #inflight = new Map<string, Promise<V>>()

  run(key: string, load: () => Promise<V>): Promise<V> {
    const pending = this.#inflight.get(key)
    if (pending) return pending
    const promise = load().finally(() => this.#inflight.delete(key))
    this.#inflight.set(key, promise)
    return promise
  }

  get size(): number {
    return this.#inflight.size
  }
}
