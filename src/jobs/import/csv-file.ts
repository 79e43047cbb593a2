/** A CSV file read chunk by chunk: the caller pulls one chunk at a time and gets its records through a sink. */
import { createReadStream, type ReadStream } from 'node:fs'
import { StringDecoder } from 'node:string_decoder'
import { throwIfAborted } from '../job.js'
import type { Progress } from '../progress.js'
import { CsvReader, type RecordSink } from './csv-reader.js'

const CHUNK_BYTES = 1 << 20

export class CsvFile {
  readonly #stream: ReadStream
  readonly #chunks: AsyncIterator<Buffer>
  readonly #reader = new CsvReader()
  readonly #decoder = new StringDecoder('utf8')
  readonly #signal: AbortSignal
  readonly #progress: Progress
  #ended = false

  constructor(file: string, signal: AbortSignal, progress: Progress) {
    this.#stream = createReadStream(file, { highWaterMark: CHUNK_BYTES })
    this.#chunks = (this.#stream as AsyncIterable<Buffer>)[Symbol.asyncIterator]()
    this.#signal = signal
    this.#progress = progress
  }

  get ended(): boolean {
    return this.#ended
  }

  /**
   * Reads the next chunk and sends its complete records to `sink` (at the end, the last record); resolves
   * false once the file is exhausted. Throws the signal's reason when the job was aborted meanwhile, and
   * CsvSyntaxError for broken quoting.
   */
  async read(sink: RecordSink): Promise<boolean> {
    if (this.#ended) return false
    const next = await this.#chunks.next()
    throwIfAborted(this.#signal)
    if (next.done) {
      this.#ended = true
      this.#reader.push(this.#decoder.end(), sink)
      this.#reader.end(sink)
      return false
    }
    this.#reader.push(this.#decoder.write(next.value), sink)
    this.#progress.tick(next.value.length)
    return true
  }

  close(): void {
    this.#stream.destroy()
  }
}
