/**
 * How long each of yesterday's `main` names has been held (PLAN_VERSION 6: a name is switched out only after the
 * α's horizon). Pure: the published `main` lists of past plan dates, newest first, become each newest name's count
 * of plan days in a row in `main`; a name's count stops at the first list without it.
 */
export function holdingStreaks(mainsNewestFirst: ReadonlyArray<readonly string[]>): Map<string, number> {
  const streaks = new Map<string, number>()
  const [newest, ...older] = mainsNewestFirst
  for (const code of newest ?? []) {
    let days = 1
    for (const list of older) {
      if (!list.includes(code)) break
      days++
    }
    streaks.set(code, days)
  }
  return streaks
}

/** Tomorrow's streaks from today's: a name in today's `main` adds a day, a name out of it starts again. */
export function nextStreaks(previous: ReadonlyMap<string, number>, main: readonly string[]): Map<string, number> {
  return new Map(main.map((code) => [code, (previous.get(code) ?? 0) + 1]))
}
