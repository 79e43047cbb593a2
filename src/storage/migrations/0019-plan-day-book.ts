import { type Kysely, sql } from 'kysely'

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and typed against no schema (kysely's advice)
type AnyDb = Kysely<any>

// What the main book's report needs of each plan day T beyond the bars of its own names (issue 38): the
// equal-weighted close-to-close return from T to the next trading day D of the investable universe known on T, and
// the exposures of T's `main` against that universe. Computing them reads every investable code's last 61 bars, so
// they are stored once per plan day (the outcomes step, and a replay at its end). They come from the day's tier
// rows: the triggers of `tier_scores` drop the day's row when its rows are deleted or updated, as for
// plan_day_stats, and the report computes a day without a row from the store's rows.
// The book reads each plan day's `main` in rank order: a partial index holds those 20 rows a day (a scan of
// every tier row took 0.8 s on the real market).
const STATEMENTS = [
  `create index tier_scores_main on tier_scores (trade_date, rank) where tier = 'main'`,
  `create table plan_day_book (
    trade_date date primary key,
    next_date date not null,
    facts json not null,
    computed_at timestamptz not null default now()
  )`,
  `create function drop_plan_day_book() returns trigger language plpgsql as $$
    begin delete from plan_day_book where trade_date in (select distinct trade_date from changed); return null; end $$`,
  `create function drop_all_plan_day_book() returns trigger language plpgsql as $$
    begin delete from plan_day_book; return null; end $$`,
  `create trigger tier_scores_book_update after update on tier_scores referencing old table as changed
    for each statement execute function drop_plan_day_book()`,
  `create trigger tier_scores_book_delete after delete on tier_scores referencing old table as changed
    for each statement execute function drop_plan_day_book()`,
  `create trigger tier_scores_book_truncate after truncate on tier_scores
    for each statement execute function drop_all_plan_day_book()`,
]

export async function up(db: AnyDb): Promise<void> {
  for (const statement of STATEMENTS) await sql.raw(statement).execute(db)
}

export async function down(db: AnyDb): Promise<void> {
  for (const event of ['update', 'delete', 'truncate'])
    await sql.raw(`drop trigger tier_scores_book_${event} on tier_scores`).execute(db)
  await sql.raw('drop function drop_all_plan_day_book()').execute(db)
  await sql.raw('drop function drop_plan_day_book()').execute(db)
  await sql.raw('drop table plan_day_book').execute(db)
  await sql.raw('drop index tier_scores_main').execute(db)
}
