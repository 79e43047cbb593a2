/** An error with an HTTP status whose message is safe to show the caller as `{detail}`. */
export class AppError extends Error {
  override name = 'AppError'
  readonly statusCode: number
  constructor(statusCode: number, message: string) {
    super(message)
    this.statusCode = statusCode
  }
}

export const notFound = (detail: string): AppError => new AppError(404, detail)
export const badRequest = (detail: string): AppError => new AppError(400, detail)
export const unprocessable = (detail: string): AppError => new AppError(422, detail)

/** Text of any thrown value, for `{detail}` and logs: the message only, never a stack. */
export function errorText(err: unknown): string {
  if (err instanceof Error) return err.message || err.name
  return String(err)
}

/** `<ExceptionType>: <message>` as the spec's per-stock error entries show it. */
export function exceptionText(err: unknown): string {
  if (err instanceof Error) return `${err.name || 'Error'}: ${err.message}`
  return `Error: ${String(err)}`
}
