/**
 * The codes that traded on a day, as far as tushare's other answers of that day tell (issue 49): a day's `daily`
 * lacking any of them is incomplete, on every path that asks for the day (a first sync, a rerun, a late day asked
 * again), and the day is recorded and asked again until it holds them.
 *
 * A code traded on D when
 * - `daily_basic` has a row of it on D: tushare lists there only codes with a trading record that day; or
 * - `adj_factor` has a row of it on D, `stock_basic` lists it as listed on D (list_date on or before D, no
 *   delist_date on or before D), and `suspend_d` does not suspend it for the whole of D (a row of type S without
 *   a time span): tushare lists the factor of every listed code before the open, suspended ones included.
 * Without `suspend_d` (no permission) a factor is no evidence: a suspension could not be told from a lost bar.
 * Without `stock_basic` the listing is not checked. A code neither answer names (both late for it) is not asked
 * for: the late interface is recorded anyway.
 */
import type { TushareTable } from '../datasource/tushare/client.js'

export interface Listing {
  /** YYYYMMDD, or null when stock_basic gives none. */
  readonly listDate: string | null
  readonly delistDate: string | null
}

export type Listings = ReadonlyMap<string, Listing>

const text = (value: unknown): string | null =>
  value === null || value === undefined || value === '' ? null : String(value)

/** stock_basic's codes with their listing dates. */
export function listingsOf(securities: TushareTable): Map<string, Listing> {
  const [code, listed, delisted] = ['ts_code', 'list_date', 'delist_date'].map((f) => securities.fields.indexOf(f))
  const out = new Map<string, Listing>()
  for (const row of securities.items) {
    out.set(String(row[code!]), { listDate: text(row[listed!]), delistDate: text(row[delisted!]) })
  }
  return out
}

function codesOf(
  table: TushareTable | null,
  keep: (row: readonly unknown[], at: (f: string) => number) => boolean = () => true,
): Set<string> {
  if (!table) return new Set()
  const at = (f: string) => table.fields.indexOf(f)
  const code = at('ts_code')
  return new Set(table.items.filter((row) => keep(row, at)).map((row) => String(row[code])))
}

/** The codes that traded on `day` (YYYYMMDD), from that day's answers. */
export function tradedCodes(
  day: string,
  answers: {
    readonly factors: TushareTable
    readonly basics: TushareTable | null
    readonly suspensions: TushareTable | null
    readonly listings: Listings | undefined
  },
): Set<string> {
  const traded = codesOf(answers.basics)
  if (!answers.suspensions) return traded
  const suspended = codesOf(
    answers.suspensions,
    (row, at) => String(row[at('suspend_type')]) === 'S' && text(row[at('suspend_timing')]) === null,
  )
  const listed = (code: string): boolean => {
    if (!answers.listings) return true
    const listing = answers.listings.get(code)
    if (!listing) return false
    return (
      (listing.listDate === null || listing.listDate <= day) &&
      (listing.delistDate === null || listing.delistDate > day)
    )
  }
  for (const code of codesOf(answers.factors)) if (listed(code) && !suspended.has(code)) traded.add(code)
  return traded
}
