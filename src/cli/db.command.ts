import type { Command } from 'commander'
import { migrateToLatest, migrationStatus } from '../storage/migrate.js'
import { withContext } from './context.js'

export function registerDbCommands(program: Command): void {
  const db = program.command('db').description('database maintenance')
  db.command('migrate')
    .description('apply pending schema migrations')
    .action(() =>
      withContext(async ({ store }) => {
        const applied = await migrateToLatest(store.db)
        console.log(applied.length === 0 ? 'schema is up to date' : `applied: ${applied.join(', ')}`)
      }),
    )
  db.command('status')
    .description('show the database in use and each migration')
    .action(() =>
      withContext(async ({ store }) => {
        console.log(
          `database: ${store.url.replace(/:[^:@/]+@/, ':***@')} (${store.embedded ? 'embedded' : 'external'})`,
        )
        for (const m of await migrationStatus(store.db)) {
          console.log(
            `${m.executedAt ? 'applied' : 'pending'}  ${m.name}${m.executedAt ? `  ${m.executedAt.toISOString()}` : ''}`,
          )
        }
      }),
    )
}
