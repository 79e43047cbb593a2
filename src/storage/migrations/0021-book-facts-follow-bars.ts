import { type Kysely, sql } from 'kysely'

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and typed against no schema (kysely's advice)
type AnyDb = Kysely<any>

// A plan day T's stored book facts (plan_day_book, 0019) are computed from the closes of T's 61 trading days
// before it through its next trading day D, and from the benchmark's (issue 49): a bar of D that arrives late (a
// held-back bar whose factor came, a day tushare completed) or a corrected bar would leave them stale for good.
// So any bar written, corrected or removed on a day drops the facts of every plan day whose next trading day is
// on or after it (more than the 61 days after need, which only costs their computing again); the outcomes step
// and the report compute them again from the rows. An update counts only when it changes what the facts read
// (close, adj_factor, is_suspended): the import also writes turnover, limits and ST flags onto stored bars. The
// night's new day drops nothing: no plan day's next trading day is after the last one stored.
// The insert triggers copy a statement's rows into a transition table; a first load into an empty store (no facts
// yet) skips reading it.
const STATEMENTS = [
  `create function drop_plan_day_book_from_rows() returns trigger language plpgsql as $$
    begin
      if exists (select from plan_day_book) then
        delete from plan_day_book where next_date >= (select min(trade_date) from changed);
      end if;
      return null;
    end $$`,
  `create function drop_plan_day_book_from_changes() returns trigger language plpgsql as $$
    begin
      if exists (select from plan_day_book) then
        delete from plan_day_book where next_date >= (
          select min(o.trade_date) from old_rows o join new_rows n on n.code = o.code and n.trade_date = o.trade_date
          where (o.close, o.adj_factor, o.is_suspended) is distinct from (n.close, n.adj_factor, n.is_suspended));
      end if;
      return null;
    end $$`,
  ...['daily_bars', 'index_bars'].flatMap((table) => [
    `create trigger ${table}_book_insert after insert on ${table} referencing new table as changed
      for each statement execute function drop_plan_day_book_from_rows()`,
    `create trigger ${table}_book_delete after delete on ${table} referencing old table as changed
      for each statement execute function drop_plan_day_book_from_rows()`,
    `create trigger ${table}_book_update after update on ${table} referencing old table as old_rows new table as new_rows
      for each statement execute function drop_plan_day_book_from_changes()`,
    `create trigger ${table}_book_truncate after truncate on ${table}
      for each statement execute function drop_all_plan_day_book()`,
  ]),
]

export async function up(db: AnyDb): Promise<void> {
  for (const statement of STATEMENTS) await sql.raw(statement).execute(db)
}

export async function down(db: AnyDb): Promise<void> {
  for (const table of ['daily_bars', 'index_bars'])
    for (const event of ['insert', 'delete', 'update', 'truncate'])
      await sql.raw(`drop trigger ${table}_book_${event} on ${table}`).execute(db)
  await sql.raw('drop function drop_plan_day_book_from_changes()').execute(db)
  await sql.raw('drop function drop_plan_day_book_from_rows()').execute(db)
}
