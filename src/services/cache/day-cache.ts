/**
 * Per-code results for a data date, which do not change within that date (its tier rows, stored states and
 * facts are written once by the day's build and plan): kept for the newest few dates and dropped when a date is
 * rebuilt or re-planned. Values are promises, so concurrent requests for one code share one computation; a
 * rejected one is dropped. At most `maxCodes` per date are kept (a client can send codes the market does not
 * have); beyond that the results are computed and not kept.
 */
export class DayCache<V> {
  readonly #days = new Map<string, Map<string, Promise<V>>>()
  readonly #maxDates: number
  readonly #maxCodes: number

  constructor(options: { maxDates: number; maxCodes: number }) {
    this.#maxDates = options.maxDates
    this.#maxCodes = options.maxCodes
  }

  get(date: string, code: string): Promise<V> | undefined {
    return this.#days.get(date)?.get(code)
  }

  set(date: string, code: string, value: Promise<V>): void {
    let day = this.#days.get(date)
    if (!day) {
      day = new Map()
      this.#days.set(date, day)
      while (this.#days.size > this.#maxDates) this.#days.delete(this.#days.keys().next().value as string)
    }
    if (day.size >= this.#maxCodes) return
    day.set(code, value)
    value.catch(() => {
      if (this.#days.get(date)?.get(code) === value) this.#days.get(date)?.delete(code)
    })
  }

  /** Drops one value unless it was replaced meanwhile. */
  delete(date: string, code: string, value: Promise<V>): void {
    const day = this.#days.get(date)
    if (day?.get(code) === value) day.delete(code)
  }

  forget(date: string): void {
    this.#days.delete(date)
  }

  clear(): void {
    this.#days.clear()
  }

  size(date: string): number {
    return this.#days.get(date)?.size ?? 0
  }
}
