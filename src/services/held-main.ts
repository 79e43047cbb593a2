import { holdingStreaks } from '../domain/holding-streak.js'
import type { IsoDate } from '../storage/schema.js'

export interface PublishedMains {
  readonly previousTierDate: (date: IsoDate) => Promise<IsoDate | undefined>
  readonly storedMain: (date: IsoDate) => Promise<string[] | undefined>
}

/**
 * The `main` published on the plan date before `date`, each name with the plan days in a row it has been in `main`,
 * read back over at most `days` plan dates (a longer streak counts as `days`). A date without a published plan ends
 * every streak there.
 */
export async function heldMain(date: IsoDate, days: number, mains: PublishedMains): Promise<Map<string, number>> {
  const lists: string[][] = []
  let before = await mains.previousTierDate(date)
  while (before !== undefined && lists.length < days) {
    const main = await mains.storedMain(before)
    if (main === undefined) break
    lists.push(main)
    before = await mains.previousTierDate(before)
  }
  return holdingStreaks(lists)
}
