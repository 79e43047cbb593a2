/**
 * Rows of a large result read a page at a time, one round trip per page. Read whole, a result of a few thousand
 * wide rows arrives in one burst that pg parses in one event-loop turn (the first 1000-code /logic_state of a
 * date stalled the loop 18-24 ms on it); a page of `PAGE_ROWS` costs about a millisecond, and other requests'
 * callbacks run between pages.
 */
export const PAGE_ROWS = 500

export async function readPaged<R>(
  query: { stream(chunkSize?: number): AsyncIterableIterator<R> },
  pageRows = PAGE_ROWS,
): Promise<R[]> {
  const rows: R[] = []
  for await (const row of query.stream(pageRows)) rows.push(row)
  return rows
}
