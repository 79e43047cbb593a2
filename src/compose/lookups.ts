import type { Logger } from '../logger.js'
import type { LatestDate } from '../services/latest-date.js'
import { createLogicStateService, type LogicStateService } from '../services/logic-state.service.js'
import type { PlanService } from '../services/plan.service.js'
import { createStockService, type StockService } from '../services/stock.service.js'
import { createVerdictService, type VerdictService } from '../services/verdict.service.js'
import type { Db } from '../storage/db.js'
import { createLookupRepository } from '../storage/lookup.repository.js'
import { createStockRepository } from '../storage/stock.repository.js'
import type { DerivedCaches } from './plan-serving.js'
import type { Repositories } from './repositories.js'

/** The per-code lookups (verdicts, logic states, the stock panel), and the caches they keep from plan rows. */
export interface Lookups extends DerivedCaches {
  readonly verdicts: VerdictService
  readonly logicStates: LogicStateService
  readonly stocks: StockService
}

export interface LookupsDeps {
  readonly db: Db
  readonly repositories: Pick<Repositories, 'inputs' | 'market' | 'tiers'>
  readonly latestDate: LatestDate
  readonly plans: PlanService
  readonly log: Logger
}

export function createLookups(deps: LookupsDeps): Lookups {
  const { db, latestDate, plans, log } = deps
  const { inputs, market, tiers } = deps.repositories
  const verdicts = createVerdictService({ inputs, market, tiers, latestDate, plans, log })
  const logicStates = createLogicStateService({ lookups: createLookupRepository(db), market, latestDate, log })
  return {
    verdicts,
    logicStates,
    stocks: createStockService({ stocks: createStockRepository(db), latestDate }),
    forgetDate: (date) => {
      verdicts.forgetDate(date)
      logicStates.forgetDate(date)
    },
    clear: () => {
      verdicts.clear()
      logicStates.clear()
    },
  }
}
