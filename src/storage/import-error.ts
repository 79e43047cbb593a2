/** A bad input: the message is exactly `<file>:<line>: <reason>`, line 1 being the header. */
export class ImportError extends Error {
  override name = 'ImportError'
  readonly file: string
  readonly line: number
  readonly reason: string
  constructor(file: string, line: number, reason: string) {
    super(`${file}:${line}: ${reason}`)
    this.file = file
    this.line = line
    this.reason = reason
  }
}
