/**
 * Seeded pseudo-random numbers for the demo market: sfc32 seeded through the cyrb128 string hash. A stream is
 * named by the seed plus labels (`new Random(42, 'bars', 17)`), so every part of the market draws from its own
 * stream and adding draws in one part never shifts another. The clock and Math.random are never read.
 */

function cyrb128(text: string): [number, number, number, number] {
  let h1 = 1779033703
  let h2 = 3144134277
  let h3 = 1013904242
  let h4 = 2773480762
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i)
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067)
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233)
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213)
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179)
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067)
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233)
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213)
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179)
  h1 ^= h2 ^ h3 ^ h4
  h2 ^= h1
  h3 ^= h1
  h4 ^= h1
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0]
}

export class Random {
  #a: number
  #b: number
  #c: number
  #d: number
  #spare: number | undefined

  constructor(seed: number, ...stream: ReadonlyArray<string | number>) {
    const [a, b, c, d] = cyrb128([String(seed), ...stream.map(String)].join('\u001f'))
    this.#a = a
    this.#b = b
    this.#c = c
    this.#d = d
    for (let i = 0; i < 12; i++) this.next()
  }

  /** Uniform in [0, 1). */
  next(): number {
    const t = (((this.#a + this.#b) | 0) + this.#d) | 0
    this.#d = (this.#d + 1) | 0
    this.#a = this.#b ^ (this.#b >>> 9)
    this.#b = (this.#c + (this.#c << 3)) | 0
    this.#c = (this.#c << 21) | (this.#c >>> 11)
    this.#c = (this.#c + t) | 0
    return (t >>> 0) / 4294967296
  }

  /** Uniform in [lo, hi). */
  float(lo: number, hi: number): number {
    return lo + (hi - lo) * this.next()
  }

  /** Uniform integer in [lo, hi], both included. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1))
  }

  chance(p: number): boolean {
    return this.next() < p
  }

  /** Log-uniform in [lo, hi): as likely to land in 1..10 as in 10..100. */
  logUniform(lo: number, hi: number): number {
    return lo * (hi / lo) ** this.next()
  }

  /** Standard normal (Marsaglia polar method), scaled to mean and sd. */
  normal(mean = 0, sd = 1): number {
    if (this.#spare !== undefined) {
      const z = this.#spare
      this.#spare = undefined
      return mean + sd * z
    }
    let u: number
    let v: number
    let s: number
    do {
      u = 2 * this.next() - 1
      v = 2 * this.next() - 1
      s = u * u + v * v
    } while (s >= 1 || s === 0)
    const f = Math.sqrt((-2 * Math.log(s)) / s)
    this.#spare = v * f
    return mean + sd * u * f
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick from an empty list')
    return items[Math.floor(this.next() * items.length)]!
  }

  /** Index chosen with probability proportional to its weight. */
  weightedIndex(weights: readonly number[]): number {
    let total = 0
    for (const w of weights) total += w
    let x = this.next() * total
    for (let i = 0; i < weights.length; i++) {
      x -= weights[i]!
      if (x < 0) return i
    }
    return weights.length - 1
  }

  /** A shuffled copy (Fisher-Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const out = items.slice()
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1))
      const tmp = out[i]!
      out[i] = out[j]!
      out[j] = tmp
    }
    return out
  }

  /** `k` distinct items in random order (all of them when `k` >= length). */
  sample<T>(items: readonly T[], k: number): T[] {
    const out = items.slice()
    const take = Math.min(k, out.length)
    for (let i = 0; i < take; i++) {
      const j = i + Math.floor(this.next() * (out.length - i))
      const tmp = out[i]!
      out[i] = out[j]!
      out[j] = tmp
    }
    return out.slice(0, take)
  }
}
