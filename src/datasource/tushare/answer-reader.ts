/**
 * An answer's body read whole, within bounds that hold however hostile the server: its bytes (what is left of the
 * query's byte budget) and its shape. A body holding more arrays than `rows` rows, or more values than `rows` rows
 * of `columns` columns, is refused as it arrives, before JSON.parse turns millions of tiny rows into a heap
 * several times the size of the text. The shape is counted on bytes: JSON's brackets, commas, quotes and
 * backslashes are ASCII, and no byte of a multi-byte UTF-8 character is.
 */
import { TushareError } from './tushare-error.js'

export interface AnswerBounds {
  /** Bytes this body may have: what the query's pages before it left of `budget`. */
  readonly bytes: number
  /** The query's byte budget (TUSHARE_MAX_ANSWER_BYTES), for the message. */
  readonly budget: number
  /** Rows the call asked for at most. */
  readonly rows: number
  readonly columns: number
}

/** Containers and separators of the envelope around the rows (`request_id`, `count` and the like included). */
const ENVELOPE = 16

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_ARRAY = 0x5b
const OPEN_OBJECT = 0x7b
const COMMA = 0x2c

function shapeCounter(api: string, bounds: AnswerBounds): (chunk: Uint8Array) => void {
  const maxContainers = bounds.rows + ENVELOPE
  const maxSeparators = (bounds.rows + 1) * (bounds.columns + 1) + ENVELOPE
  let inString = false
  let escaped = false
  let containers = 0
  let separators = 0
  return (chunk) => {
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]
      if (inString) {
        if (escaped) escaped = false
        else if (b === BACKSLASH) escaped = true
        else if (b === QUOTE) inString = false
      } else if (b === QUOTE) inString = true
      else if (b === OPEN_ARRAY || b === OPEN_OBJECT) containers++
      else if (b === COMMA) separators++
    }
    if (containers > maxContainers || separators > maxSeparators) {
      throw new TushareError(
        api,
        'answer',
        `tushare ${api}: the answer holds more than ${bounds.rows} rows of ${bounds.columns} values, the most one call was asked for: refused as it arrived`,
      )
    }
  }
}

const oversize = (api: string, budget: number) =>
  new TushareError(
    api,
    'answer',
    `tushare ${api}: the answer is larger than ${budget} bytes (TUSHARE_MAX_ANSWER_BYTES, all pages of one query together): refused; raise the setting if a real answer needs it`,
  )

/** The body as text with its size, refused past its bytes or its shape (the stream is cancelled, not drained). */
export async function readAnswer(
  api: string,
  response: Response,
  bounds: AnswerBounds,
): Promise<{ text: string; bytes: number }> {
  const length = Number(response.headers.get('content-length') ?? Number.NaN)
  if (length > bounds.bytes) {
    await response.body?.cancel()
    throw oversize(api, bounds.budget)
  }
  if (!response.body) return { text: '', bytes: 0 }
  const count = shapeCounter(api, bounds)
  const chunks: Uint8Array[] = []
  let total = 0
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    total += chunk.byteLength
    if (total > bounds.bytes) throw oversize(api, bounds.budget)
    count(chunk)
    chunks.push(chunk)
  }
  return { text: Buffer.concat(chunks).toString('utf8'), bytes: total }
}
