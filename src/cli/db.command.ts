import type { Command } from 'commander'

export function registerDbCommands(program: Command): void {
  const db = program.command('db').description('database maintenance')
  db.command('migrate')
    .description('apply pending schema migrations')
    .action(async () => {
      const [{ withContext }, { migrateToLatest }] = await Promise.all([
        import('./context.js'),
        import('../storage/migrate.js'),
      ])
      await withContext(async ({ store }) => {
        const applied = await migrateToLatest(store.db)
        console.log(applied.length === 0 ? 'schema is up to date' : `applied: ${applied.join(', ')}`)
      })
    })
  db.command('status')
    .description('show the database in use and each migration')
    .action(async () => {
      const [{ withContext }, { migrationStatus }] = await Promise.all([
        import('./context.js'),
        import('../storage/migrate.js'),
      ])
      await withContext(async ({ store }) => {
        console.log(
          `database: ${store.url.replace(/:[^:@/]+@/, ':***@')} (${store.embedded ? 'embedded' : 'external'})`,
        )
        for (const m of await migrationStatus(store.db)) {
          console.log(
            `${m.executedAt ? 'applied' : 'pending'}  ${m.name}${m.executedAt ? `  ${m.executedAt.toISOString()}` : ''}`,
          )
        }
      })
    })
}
