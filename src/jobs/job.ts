import type { IsoDate } from '../storage/schema.js'

/** What every chain job returns: a one-line summary for logs and scheduler callbacks, plus its figures. */
export interface JobResult {
  readonly summary: string
  readonly date: IsoDate
  readonly [key: string]: unknown
}

/** Arguments of the chain jobs: the data date, or undefined for the latest date the data allows. */
export interface DateArgs {
  readonly date?: IsoDate
}

/** A chain step bound to its dependencies, as the CLI and the scheduler router both call it. */
export type ChainStep = (args: DateArgs, signal: AbortSignal) => Promise<JobResult>

export { JobAbortedError, throwIfAborted } from '../abort.js'
