/** Cross-sectional percentile rank in [0, 1] (ties share their average rank); missing values stay missing. */
export function percentileRanks(values: ReadonlyMap<string, number | null>): Map<string, number> {
  const present = [...values].filter((e): e is [string, number] => e[1] !== null && Number.isFinite(e[1]))
  present.sort((a, b) => a[1] - b[1])
  const out = new Map<string, number>()
  const n = present.length
  let i = 0
  while (i < n) {
    let j = i
    while (j + 1 < n && present[j + 1]![1] === present[i]![1]) j++
    const pct = n === 1 ? 1 : (i + j) / 2 / (n - 1)
    for (let k = i; k <= j; k++) out.set(present[k]![0], pct)
    i = j + 1
  }
  return out
}
