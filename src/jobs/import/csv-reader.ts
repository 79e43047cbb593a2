/**
 * A streaming RFC 4180 CSV reader that knows the physical line each record starts on.
 *
 * csv-parse needed 7.4 s for 1.25 million bar rows on the 2-core build machine, more than a third of the
 * 20 s import budget; this reader handles the same file in about a second because most records hold no
 * quote and take the `indexOf` + `split` fast path. Quoted fields may hold commas, quotes (`""`) and line
 * breaks; a line break inside quotes counts as a physical line, so reported line numbers match an editor.
 */

export interface CsvRecord {
  /** 1-based physical line the record starts on (the header is line 1). */
  readonly line: number
  readonly fields: string[]
}

/** Receives each record as soon as it is complete; `line` is the physical line it starts on. */
export type RecordSink = (fields: string[], line: number) => void

export class CsvSyntaxError extends Error {
  override name = 'CsvSyntaxError'
  readonly line: number
  constructor(line: number, message: string) {
    super(message)
    this.line = line
  }
}

function findQuote(text: string, from: number): number {
  return text.indexOf('"', from)
}

/** A record longer than this is taken for an unterminated quote rather than buffered without end. */
const MAX_RECORD_CHARS = 16 * 1024 * 1024

/**
 * Incremental parser: `push` text chunks (already decoded, any size, split anywhere) and the sink receives
 * the complete records of each chunk; `end` delivers the last record when the input has no final line
 * break. Records go straight to the sink rather than into an array: on a 100 MB file the garbage collector
 * otherwise spends more time copying the waiting records than the parser spends reading them.
 */
export class CsvReader {
  #rest = ''
  #line = 1
  #started = false

  /** The physical line the next unread text starts on (after the text held back for an incomplete record). */
  get pendingLine(): number {
    let line = this.#line
    for (let i = this.#rest.indexOf('\n'); i >= 0; i = this.#rest.indexOf('\n', i + 1)) line++
    return line
  }

  /** Sends the complete records of `chunk` (plus text held back from earlier chunks) to `sink`. */
  push(chunk: string, sink: RecordSink): void {
    let text = this.#rest + chunk
    if (!this.#started) {
      if (text.length === 0) return
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
      this.#started = true
    }
    const consumed = this.#parse(text, sink, false)
    this.#rest = text.slice(consumed)
    if (this.#rest.length > MAX_RECORD_CHARS) {
      throw new CsvSyntaxError(this.#line, 'record longer than 16 MB: is a quote left open?')
    }
  }

  /** Sends the final record when the input does not end with a line break. */
  end(sink: RecordSink): void {
    const text = this.#rest
    this.#rest = ''
    if (text.length > 0) this.#parse(text, sink, true)
  }

  /** Parses whole records from `text`; returns how many characters were consumed. */
  #parse(text: string, sink: RecordSink, final: boolean): number {
    let pos = 0
    // (an inlined `text.indexOf('"')` here made V8 run this loop ten times slower: keep it in a helper)
    let nextQuote = text.includes('"') ? findQuote(text, 0) : -1
    const length = text.length
    while (pos < length) {
      let eol = text.indexOf('\n', pos)
      if (eol < 0) {
        if (!final) return pos
        eol = length
      }
      if (nextQuote >= 0 && nextQuote < pos) nextQuote = findQuote(text, pos)
      if (nextQuote < 0 || nextQuote >= eol) {
        // fast path: no quote on this line
        const end = eol > pos && text.charCodeAt(eol - 1) === 13 ? eol - 1 : eol
        const line = this.#line++
        if (end > pos) sink(text.slice(pos, end).split(','), line)
        pos = eol + 1
        continue
      }
      const next = this.#parseQuoted(text, pos, sink, final)
      if (next < 0) return pos
      pos = next
    }
    return pos
  }

  /** Slow path for a record with quotes; returns the position after it, or -1 when it is incomplete. */
  #parseQuoted(text: string, start: number, sink: RecordSink, final: boolean): number {
    const fields: string[] = []
    const length = text.length
    let newlines = 0
    let pos = start
    for (;;) {
      // one field starts at pos
      if (pos < length && text.charCodeAt(pos) === 34) {
        let value = ''
        let from = pos + 1
        for (;;) {
          const quote = text.indexOf('"', from)
          if (quote < 0) {
            if (final) throw new CsvSyntaxError(this.#line, 'quoted field is not closed')
            return -1
          }
          value += text.slice(from, quote)
          if (quote + 1 < length && text.charCodeAt(quote + 1) === 34) {
            value += '"'
            from = quote + 2
            continue
          }
          if (quote + 1 >= length && !final) return -1
          pos = quote + 1
          break
        }
        for (let i = value.indexOf('\n'); i >= 0; i = value.indexOf('\n', i + 1)) newlines++
        fields.push(value)
        const c = pos < length ? text.charCodeAt(pos) : 10
        if (c === 44) {
          pos++
          continue
        }
        if (c === 13 && (pos + 1 >= length || text.charCodeAt(pos + 1) === 10)) {
          if (pos + 1 >= length && !final) return -1
          pos++
        }
        if (pos >= length || text.charCodeAt(pos) === 10) break
        throw new CsvSyntaxError(this.#line + newlines, 'unexpected text after a closing quote')
      }
      // unquoted field: up to the next comma or line break (a quote inside is taken literally)
      let end = pos
      while (end < length) {
        const c = text.charCodeAt(end)
        if (c === 44 || c === 10) break
        end++
      }
      if (end >= length && !final) return -1
      let fieldEnd = end
      if (fieldEnd > pos && text.charCodeAt(fieldEnd - 1) === 13 && (end >= length || text.charCodeAt(end) === 10)) {
        fieldEnd--
      }
      fields.push(text.slice(pos, fieldEnd))
      pos = end
      if (pos < length && text.charCodeAt(pos) === 44) {
        pos++
        continue
      }
      break
    }
    const line = this.#line
    this.#line += 1 + newlines
    sink(fields, line)
    return pos + 1
  }
}
