import type { NewStockDailyRow } from '../../src/storage/schema.js'

/** A published daily row (an observed name on its first day tracked); override what the test is about. */
export function stockDailyRow(
  overrides: Partial<NewStockDailyRow> & Pick<NewStockDailyRow, 'code' | 'trade_date'>,
): NewStockDailyRow {
  return {
    verdict: 'observe',
    card_rank: null,
    plan_version: '6',
    logic_state: 'forming',
    score_ema: 50,
    state_since: overrides.trade_date,
    state_rule: 'r',
    days_in_state: 1,
    above_days: 0,
    absent_days: 0,
    code_version: 'test',
    ...overrides,
  }
}
