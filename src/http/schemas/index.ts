import type { TSchema } from 'typebox'
import { CodeErrorSchema, ErrorSchema } from './common.schema.js'
import { HealthSchema } from './health.schema.js'
import {
  CompanyReviewSchema,
  LogicStateEntrySchema,
  LogicStateListSchema,
  ValuationSchema,
} from './logic-state.schema.js'
import {
  EvidenceEdgeSchema,
  MarketSchema,
  PlanDatesSchema,
  PlanRefreshSchema,
  PlanRowSchema,
  PlanSchema,
  RegimeSchema,
} from './plan.schema.js'
import {
  CandleSchema,
  StockFactsListSchema,
  StockFactsSchema,
  StockFundamentalsSchema,
  StockMarkSchema,
  StockSchema,
} from './stock.schema.js'
import { TrackRecordSchema } from './track-record.schema.js'
import { VerdictEntrySchema, VerdictErrorSchema, VerdictListSchema } from './verdict.schema.js'

/**
 * Every named schema, registered with `addSchema` so routes refer to them by `$id` and the OpenAPI document
 * lists them under `components.schemas`. A new response (the track record, say) is one more entry.
 */
export const componentSchemas: readonly TSchema[] = [
  ErrorSchema,
  CodeErrorSchema,
  HealthSchema,
  PlanDatesSchema,
  EvidenceEdgeSchema,
  PlanRowSchema,
  RegimeSchema,
  MarketSchema,
  PlanSchema,
  PlanRefreshSchema,
  VerdictEntrySchema,
  VerdictErrorSchema,
  VerdictListSchema,
  ValuationSchema,
  CompanyReviewSchema,
  LogicStateEntrySchema,
  LogicStateListSchema,
  TrackRecordSchema,
  StockFundamentalsSchema,
  CandleSchema,
  StockMarkSchema,
  StockSchema,
  StockFactsSchema,
  StockFactsListSchema,
]
