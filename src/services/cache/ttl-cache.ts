/** A small cache with a lifetime and a size bound; when full, the oldest stored entry is evicted first. */
export class TtlCache<V> {
  readonly #entries = new Map<string, { value: V; storedAt: number }>()
  readonly #ttlMs: number
  readonly #max: number
  readonly #now: () => number

  constructor(options: { ttlMs: number; max: number; now?: () => number }) {
    this.#ttlMs = options.ttlMs
    this.#max = options.max
    this.#now = options.now ?? Date.now
  }

  get enabled(): boolean {
    return this.#ttlMs > 0 && this.#max > 0
  }

  get(key: string): V | undefined {
    const entry = this.#entries.get(key)
    if (!entry) return undefined
    if (this.#now() - entry.storedAt >= this.#ttlMs) {
      this.#entries.delete(key)
      return undefined
    }
    return entry.value
  }

  set(key: string, value: V): void {
    if (!this.enabled) return
    this.#entries.delete(key) // a re-stored key becomes the newest
    this.#entries.set(key, { value, storedAt: this.#now() })
    while (this.#entries.size > this.#max) {
      const oldest = this.#entries.keys().next().value as string
      this.#entries.delete(oldest)
    }
  }

  delete(key: string): void {
    this.#entries.delete(key)
  }

  clear(): void {
    this.#entries.clear()
  }

  keys(): string[] {
    return [...this.#entries.keys()]
  }

  get size(): number {
    return this.#entries.size
  }
}
