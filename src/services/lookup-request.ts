/** What both lookup services do before their own work: check the code list and settle the date. */
import { codeListProblem } from '../domain/code-list.js'
import { AppError, badRequest, notFound, unprocessable } from '../errors.js'
import type { LatestDate } from './latest-date.js'

/** The failure text for a `{detail}`: the error's message (an AggregateError's inner messages), never a stack. */
export function failureText(err: unknown): string {
  if (err instanceof AggregateError && err.message === '' && err.errors.length > 0) {
    return [...new Set(err.errors.map((e) => failureText(e)))].join('; ')
  }
  if (err instanceof Error) return err.message || err.name
  return String(err)
}

/** 400 for no code, 422 for more than the per-request limit. */
export function checkCodeList(items: readonly string[]): void {
  const problem = codeListProblem(items)
  if (problem?.kind === 'empty') throw badRequest(problem.detail)
  if (problem?.kind === 'too_many') throw unprocessable(problem.detail)
}

/** The given date, else the latest tier date: 404 when the tier table is empty, 500 when it cannot be read. */
export async function lookupDate(latestDate: Pick<LatestDate, 'get'>, given: string | undefined): Promise<string> {
  if (given !== undefined) return given
  let latest: string | undefined
  try {
    latest = await latestDate.get()
  } catch (err) {
    throw new AppError(500, failureText(err))
  }
  if (!latest) {
    throw notFound("the tier table is empty: run the day's build first (`stockplan build` or `stockplan chain`)")
  }
  return latest
}
