import { redactUrlsIn } from './redact.js'

/**
 * What went wrong, named for what happened rather than for HTTP: services throw these, and the HTTP error
 * handler maps each code to a status in one table (src/http/error-status.ts). The message is safe to show the
 * caller as `{detail}`.
 */
export type DomainErrorCode =
  /** No code was given to a lookup. */
  | 'NoCodes'
  /** More codes than one lookup takes. */
  | 'TooManyCodes'
  /** A query the store cannot answer as asked (reversed range, unknown horizon or benchmark). */
  | 'QueryInvalid'
  /** The tier table has no date at all: nothing was built yet. */
  | 'TierTableEmpty'
  /** The date has no tier rows, so there is no plan (nor verdict) for it. */
  | 'PlanNotFound'
  /** A well-formed code the store knows nothing about (no security row, no bar). */
  | 'StockNotFound'
  /** Reading what a lookup needs failed (the detail carries the store's own text). */
  | 'LookupFailed'
  /** The store cannot be read and there is nothing usable to answer from instead. */
  | 'StoreUnavailable'
  /** The plan file could not be written. */
  | 'PlanFileNotWritten'

export class DomainError extends Error {
  override name = 'DomainError'
  readonly code: DomainErrorCode
  constructor(code: DomainErrorCode, message: string, options?: ErrorOptions) {
    super(message, options)
    this.code = code
  }
}

/** Whether `err` is a domain error with `code`. */
export const isDomainError = (err: unknown, code: DomainErrorCode): err is DomainError =>
  err instanceof DomainError && err.code === code

export interface ErrorTextOptions {
  /** `<ExceptionType>: <message>`, the form of the spec's per-stock error entries. */
  readonly withType?: boolean
  /**
   * What a failed `fetch` needs to say why: a timeout as `timed out`, and the cause's code (or message)
   * appended in parentheses, e.g. `fetch failed (ECONNREFUSED)`.
   */
  readonly withCause?: boolean
}

/**
 * Text of any thrown value, for `{detail}`, error entries and logs: the message only, never a stack. An
 * AggregateError without a message (net's, when every address of a host refused) gives its inner texts.
 */
export function errorText(err: unknown, options: ErrorTextOptions = {}): string {
  return redactUrlsIn(rawErrorText(err, options))
}

function rawErrorText(err: unknown, options: ErrorTextOptions): string {
  if (!(err instanceof Error)) return options.withType ? `Error: ${String(err)}` : String(err)
  if (options.withType) return `${err.name || 'Error'}: ${err.message}`
  if (err instanceof AggregateError && err.message === '' && err.errors.length > 0) {
    return [...new Set(err.errors.map((inner) => rawErrorText(inner, options)))].join('; ')
  }
  if (options.withCause) {
    if (err.name === 'TimeoutError') return 'timed out'
    const cause = causeText(err.cause)
    if (cause) return `${err.message} (${cause})`
  }
  return err.message || err.name
}

function causeText(cause: unknown): string | undefined {
  if (!(cause instanceof Error)) return undefined
  const code = (cause as { code?: unknown }).code
  return typeof code === 'string' ? code : cause.message
}
