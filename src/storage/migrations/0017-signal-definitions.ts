import { type Kysely, sql } from 'kysely'

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and typed against no schema (kysely's advice)
type AnyDb = Kysely<any>

// Stored signal ICs are tied to the signal definitions that produced them (issue 38): each build records the
// fingerprint of the definitions it scored with, each IC row the fingerprint of the build whose tier rows it was
// measured on, and a build learns only from ICs of its own fingerprint. Rows from before this migration carry ''
// (definitions unknown): no build learns from them.
const STATEMENTS = [
  'alter table builds add column signal_definitions text',
  `alter table signal_ic add column definitions text not null default ''`,
]

export async function up(db: AnyDb): Promise<void> {
  for (const statement of STATEMENTS) await sql.raw(statement).execute(db)
}

export async function down(db: AnyDb): Promise<void> {
  await sql.raw('alter table signal_ic drop column definitions').execute(db)
  await sql.raw('alter table builds drop column signal_definitions').execute(db)
}
