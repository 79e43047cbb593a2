/**
 * Collapses concurrent loads of one key into one promise; failures are shared but never kept. A key may be an object
 * (held only while its load runs).
 */
export class SingleFlight<V, K = string> {
  readonly #inflight = new Map<K, Promise<V>>()

  run(key: K, load: () => Promise<V>): Promise<V> {
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
