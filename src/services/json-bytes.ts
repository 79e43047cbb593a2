/**
 * Response bodies spliced from UTF-8 pieces: what is kept per entry is encoded once, and a response copies those
 * bytes instead of joining a large string and encoding it again per request.
 */
export const utf8 = (text: string): Buffer => Buffer.from(text, 'utf8')

/** `{"a":1}` -> `"a":1`: members to splice into an object written by hand. */
export const members = (value: object | undefined): string => (value ? JSON.stringify(value).slice(1, -1) : '')

/** The pieces of one JSON body, in order. */
export class JsonBytes {
  readonly #chunks: Buffer[] = []

  text(text: string): this {
    this.#chunks.push(utf8(text))
    return this
  }

  bytes(bytes: Buffer): this {
    this.#chunks.push(bytes)
    return this
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.#chunks)
  }
}
