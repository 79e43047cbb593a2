const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/

/** A real calendar date written `YYYY-MM-DD`, year 0001 or later (PostgreSQL has no year zero). */
export function isIsoDate(text: string): boolean {
  if (!ISO_DATE.test(text)) return false
  const [y, m, d] = text.split('-').map(Number) as [number, number, number]
  if (y < 1) return false
  const date = new Date(Date.UTC(y, m - 1, d))
  date.setUTCFullYear(y) // Date.UTC maps years 0..99 to 1900..1999
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d
}
