import { parseCodeItems } from '../domain/code-list.js'
import { parseCode } from '../domain/codes.js'
import { type Candle, forwardAdjustedCandles, MA_LONG } from '../domain/stock-chart.js'
import { DomainError } from '../errors.js'
import type { StockFundamentals, StockMark, StockRepository, TierPosition } from '../storage/stock.repository.js'
import type { LatestDate } from './latest-date.js'
import { checkCodeList, lookupDate } from './lookup-request.js'

export interface StockPanel {
  readonly code: string
  readonly name: string | null
  readonly industry: string | null
  readonly date: string
  readonly adjustment: 'forward'
  readonly bars: Candle[]
  readonly fundamentals: Omit<StockFundamentals, 'code'> | null
  readonly marks: StockMark[]
}

export interface StockFacts {
  readonly input: string
  readonly code: string
  readonly name: string | null
  readonly industry: string | null
  readonly fundamentals: Omit<StockFundamentals, 'code'> | null
  readonly previous: Omit<TierPosition, 'code'> | null
}

export interface StockFactsList {
  readonly date: string
  readonly previous_date: string | null
  readonly stocks: Array<StockFacts | { readonly input: string; readonly error: string }>
}

const withoutCode = <T extends { code: string }>(row: T | undefined): Omit<T, 'code'> | null => {
  if (!row) return null
  const { code: _code, ...rest } = row
  return rest
}

/** The stock panel (`GET /stock/{code}`) and the viewer's per-row facts (`GET /stocks`). */
export function createStockService(deps: { stocks: StockRepository; latestDate: Pick<LatestDate, 'get'> }) {
  const { stocks } = deps
  return {
    async panel(query: { code: string; date?: string; days: number }): Promise<StockPanel> {
      const parsed = parseCode(query.code)
      if (!parsed.ok) throw new DomainError('QueryInvalid', parsed.reason)
      const { code } = parsed
      const date = await lookupDate(deps.latestDate, query.date)
      const [identity, raw, basics] = await Promise.all([
        stocks.identities([code]).then((m) => m.get(code)),
        stocks.bars(code, date, query.days + MA_LONG - 1),
        stocks.fundamentals([code], date).then((m) => m.get(code)),
      ])
      if (!identity && raw.length === 0)
        throw new DomainError('StockNotFound', `${code} is not in the store: no security row and no bars`)
      const bars = forwardAdjustedCandles(raw, query.days)
      const marks = bars.length > 0 ? await stocks.marks(code, bars[0]!.date, date) : []
      return {
        code,
        name: identity?.name ?? null,
        industry: identity?.industry ?? null,
        date,
        adjustment: 'forward',
        bars,
        fundamentals: withoutCode(basics),
        marks,
      }
    },

    async facts(query: { codes: readonly string[]; date?: string }): Promise<StockFactsList> {
      checkCodeList(query.codes)
      const items = parseCodeItems(query.codes)
      const seen = new Set<string>()
      const valid: Array<{ input: string; code: string }> = []
      for (const item of items)
        if ('code' in item && !seen.has(item.code)) {
          seen.add(item.code)
          valid.push(item)
        }
      const codes = valid.map((v) => v.code)
      const date = await lookupDate(deps.latestDate, query.date)
      const previousDate = await stocks.previousTierDate(date)
      const [identities, basics, previous] = await Promise.all([
        stocks.identities(codes),
        stocks.fundamentals(codes, date),
        previousDate ? stocks.tierPositions(codes, previousDate) : Promise.resolve(new Map<string, TierPosition>()),
      ])
      return {
        date,
        previous_date: previousDate,
        stocks: [
          ...valid.map(({ input, code }) => ({
            input,
            code,
            name: identities.get(code)?.name ?? null,
            industry: identities.get(code)?.industry ?? null,
            fundamentals: withoutCode(basics.get(code)),
            previous: withoutCode(previous.get(code)),
          })),
          ...items.flatMap((item) => ('error' in item ? [item] : [])),
        ],
      }
    },
  }
}

export type StockService = ReturnType<typeof createStockService>
