import { DomainError, type DomainErrorCode } from '../errors.js'

/** The one place a domain error becomes an HTTP status. */
export const STATUS_BY_CODE: Readonly<Record<DomainErrorCode, number>> = {
  NoCodes: 400,
  TooManyCodes: 422,
  QueryInvalid: 422,
  TierTableEmpty: 404,
  PlanNotFound: 404,
  StockNotFound: 404,
  LookupFailed: 500,
  StoreUnavailable: 503,
  PlanFileNotWritten: 503,
}

/** A refusal the HTTP edge itself decides (a malformed query), with its status; its message is the `{detail}`. */
export class HttpError extends Error {
  override name = 'HttpError'
  readonly statusCode: number
  constructor(statusCode: number, message: string) {
    super(message)
    this.statusCode = statusCode
  }
}

export const unprocessable = (detail: string): HttpError => new HttpError(422, detail)

/** The status and `{detail}` of an error whose text is meant for the caller; undefined for any other error. */
export function callerError(err: unknown): { status: number; detail: string } | undefined {
  if (err instanceof DomainError) return { status: STATUS_BY_CODE[err.code], detail: err.message }
  if (err instanceof HttpError) return { status: err.statusCode, detail: err.message }
  return undefined
}
