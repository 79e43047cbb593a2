/** What both lookup services do before their own work: check the code list and settle the date. */
import { codeListProblem } from '../domain/code-list.js'
import { DomainError, errorText } from '../errors.js'
import type { LatestDate } from './latest-date.js'

/** NoCodes for no code, TooManyCodes for more than the per-request limit. */
export function checkCodeList(items: readonly string[]): void {
  const problem = codeListProblem(items)
  if (problem?.kind === 'empty') throw new DomainError('NoCodes', problem.detail)
  if (problem?.kind === 'too_many') throw new DomainError('TooManyCodes', problem.detail)
}

/** The given date, else the latest tier date: TierTableEmpty, or LookupFailed when it cannot be read. */
export async function lookupDate(latestDate: Pick<LatestDate, 'get'>, given: string | undefined): Promise<string> {
  if (given !== undefined) return given
  let latest: string | undefined
  try {
    latest = await latestDate.get()
  } catch (err) {
    throw new DomainError('LookupFailed', errorText(err), { cause: err })
  }
  if (!latest) {
    throw new DomainError(
      'TierTableEmpty',
      "the tier table is empty: run the day's build first (`stockplan build` or `stockplan chain`)",
    )
  }
  return latest
}
