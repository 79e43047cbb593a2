import type pg from 'pg'
import type { Config } from '../config.js'
import type { Db } from '../storage/db.js'
import { createMarketDataRepository, type MarketDataRepository } from '../storage/market-data.repository.js'
import { createPlanFiles, type PlanFiles } from '../storage/plan-files.js'
import { createPlanInputRepository, type PlanInputRepository } from '../storage/plan-input.repository.js'
import { createSignalIcRepository, type SignalIcRepository } from '../storage/signal-ic.repository.js'
import { createTierRepository, type TierRepository } from '../storage/tier.repository.js'

export interface StoreHandle {
  readonly db: Db
  readonly pool: pg.Pool
  readonly url?: string
}

/** The repositories more than one area reads: the serving, the lookups and the chain's steps share these. */
export interface Repositories {
  readonly tiers: TierRepository
  readonly market: MarketDataRepository
  readonly inputs: PlanInputRepository
  readonly files: PlanFiles
  readonly signalIc: SignalIcRepository
}

export function createRepositories(config: Config, store: StoreHandle): Repositories {
  return {
    tiers: createTierRepository(store.db),
    market: createMarketDataRepository(store.db),
    inputs: createPlanInputRepository(store.db),
    files: createPlanFiles(config.planDataDir),
    signalIc: createSignalIcRepository(store.db),
  }
}
