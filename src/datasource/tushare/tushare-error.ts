/** What the client answers and how it fails: shared by the client and its checks of an answer. */

export interface TushareTable {
  readonly fields: readonly string[]
  readonly items: readonly (readonly unknown[])[]
}

export type TushareFailure = 'token' | 'permission' | 'rate' | 'quota' | 'answer'

/** One clear line per failure: what tushare said, about which interface, and what to do. */
export class TushareError extends Error {
  override name = 'TushareError'
  readonly api: string
  readonly kind: TushareFailure
  constructor(api: string, kind: TushareFailure, message: string) {
    super(message)
    this.api = api
    this.kind = kind
  }
}
