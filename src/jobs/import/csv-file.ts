/** A CSV file read chunk by chunk: the caller pulls one chunk at a time and gets its records through a sink. */
import type { ReadStream } from 'node:fs'
import type { FileHandle } from 'node:fs/promises'
import { TextDecoder } from 'node:util'
import { throwIfAborted } from '../job.js'
import type { Progress } from '../progress.js'
import { CsvReader, type RecordSink } from './csv-reader.js'

const CHUNK_BYTES = 1 << 20

/** Encodings a bundle may come in: UTF-8 (tushare's CSV export) or GBK (files saved by Excel on a Chinese Windows). */
export type CsvEncoding = 'utf8' | 'gbk'

/** Bytes that are not valid text in the file's encoding; `line` is the physical line they are on. */
export class CsvEncodingError extends Error {
  override name = 'CsvEncodingError'
  readonly line: number
  constructor(line: number, message: string) {
    super(message)
    this.line = line
  }
}

function countNewlines(text: string): number {
  let n = 0
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++
  return n
}

export class CsvFile {
  readonly #stream: ReadStream
  readonly #chunks: AsyncIterator<Buffer>
  readonly #reader = new CsvReader()
  readonly #decoder: TextDecoder
  readonly #encoding: CsvEncoding
  readonly #signal: AbortSignal
  readonly #progress: Progress
  #ended = false

  /** Reads from `handle` (opened by `openBundleFile`) and closes it. */
  constructor(handle: FileHandle, signal: AbortSignal, progress: Progress, encoding: CsvEncoding = 'utf8') {
    this.#encoding = encoding
    this.#decoder = new TextDecoder(encoding, { fatal: true })
    this.#stream = handle.createReadStream({ highWaterMark: CHUNK_BYTES })
    this.#chunks = (this.#stream as AsyncIterable<Buffer>)[Symbol.asyncIterator]()
    this.#signal = signal
    this.#progress = progress
  }

  get ended(): boolean {
    return this.#ended
  }

  /**
   * Reads the next chunk and sends its complete records to `sink` (at the end, the last record); resolves
   * false once the file is exhausted. Throws the signal's reason when the job was aborted meanwhile,
   * CsvSyntaxError for broken quoting and CsvEncodingError for bytes the encoding does not allow.
   */
  async read(sink: RecordSink): Promise<boolean> {
    if (this.#ended) return false
    const next = await this.#chunks.next()
    throwIfAborted(this.#signal)
    if (next.done) {
      this.#ended = true
      this.#reader.push(this.#decode(undefined), sink)
      this.#reader.end(sink)
      return false
    }
    this.#reader.push(this.#decode(next.value), sink)
    this.#progress.tick(next.value.length)
    return true
  }

  #decode(chunk: Buffer | undefined): string {
    try {
      return chunk === undefined ? this.#decoder.decode() : this.#decoder.decode(chunk, { stream: true })
    } catch (err) {
      if ((err as { code?: string }).code !== 'ERR_ENCODING_INVALID_ENCODED_DATA') throw err
      // the line of the first bad byte: lines the reader has passed, plus those before the byte in this chunk
      const lenient = chunk === undefined ? '' : new TextDecoder(this.#encoding).decode(chunk)
      const bad = lenient.indexOf('\uFFFD')
      const line = this.#reader.pendingLine + countNewlines(lenient.slice(0, Math.max(0, bad)))
      const hint =
        this.#encoding === 'utf8'
          ? 'not valid UTF-8; if the file is GBK (a CSV saved by Excel on Chinese Windows), import with --encoding gbk'
          : `not valid ${this.#encoding.toUpperCase()}; check the file's encoding (UTF-8 is the default)`
      throw new CsvEncodingError(line, hint)
    }
  }

  close(): void {
    this.#stream.destroy()
  }
}
