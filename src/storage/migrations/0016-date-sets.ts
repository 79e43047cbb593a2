import { type Kysely, sql } from 'kysely'

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and typed against no schema (kysely's advice)
type AnyDb = Kysely<any>

// The distinct dates of stock_daily (the published plan dates) and of plan_outcomes per horizon, one row each,
// kept by triggers (issue 28). The outcomes job asks each day which published dates lack outcomes, ICs or
// statistics; walking the big tables' dates by one index probe each cost 6-30 us a date, three walks a horizon,
// a replay's largest growing cost after the PE percentiles. The insert triggers copy a statement's new rows into a
// transition table to note their dates: once a day for the daily rows, once a day and horizon for the outcomes.
const removeGone = (set: string, from: string, keys: string[]) =>
  `delete from ${set} d where (${keys.map((k) => `d.${k}`).join(', ')}) in
      (select distinct ${keys.join(', ')} from removed)
    and not exists (select from ${from} t where ${keys.map((k) => `t.${k} = d.${k}`).join(' and ')})`
const addNew = (set: string, keys: string[]) =>
  `insert into ${set} select distinct ${keys.join(', ')} from added on conflict do nothing`

const SETS = [
  { set: 'plan_dates', from: 'stock_daily', keys: ['trade_date'], key: 'primary key (trade_date)' },
  {
    set: 'outcome_dates',
    from: 'plan_outcomes',
    keys: ['horizon', 'trade_date'],
    key: 'primary key (horizon, trade_date)',
  },
]

const STATEMENTS = SETS.flatMap(({ set, from, keys, key }) => [
  `create table ${set} (${keys.map((k) => `${k} ${k === 'horizon' ? 'integer' : 'date'} not null`).join(', ')}, ${key})`,
  `insert into ${set} select distinct ${keys.join(', ')} from ${from}`,
  `create function add_${set}() returns trigger language plpgsql as $$
    begin ${addNew(set, keys)}; return null; end $$`,
  `create function drop_${set}() returns trigger language plpgsql as $$
    begin ${removeGone(set, from, keys)}; return null; end $$`,
  `create function move_${set}() returns trigger language plpgsql as $$
    begin ${addNew(set, keys)}; ${removeGone(set, from, keys)}; return null; end $$`,
  `create function drop_all_${set}() returns trigger language plpgsql as $$
    begin delete from ${set}; return null; end $$`,
  `create trigger ${set}_insert after insert on ${from} referencing new table as added
    for each statement execute function add_${set}()`,
  `create trigger ${set}_delete after delete on ${from} referencing old table as removed
    for each statement execute function drop_${set}()`,
  `create trigger ${set}_update after update on ${from} referencing old table as removed new table as added
    for each statement execute function move_${set}()`,
  `create trigger ${set}_truncate after truncate on ${from} for each statement execute function drop_all_${set}()`,
])

export async function up(db: AnyDb): Promise<void> {
  for (const statement of STATEMENTS) await sql.raw(statement).execute(db)
}

export async function down(db: AnyDb): Promise<void> {
  for (const { set, from } of SETS) {
    for (const event of ['insert', 'delete', 'update', 'truncate'])
      await sql.raw(`drop trigger ${set}_${event} on ${from}`).execute(db)
    for (const fn of ['add', 'drop', 'move', 'drop_all']) await sql.raw(`drop function ${fn}_${set}()`).execute(db)
    await sql.raw(`drop table ${set}`).execute(db)
  }
}
