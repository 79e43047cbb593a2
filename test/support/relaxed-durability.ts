import type pg from 'pg'

/**
 * A throwaway test cluster never survives a crash of its host, so it needs no durability: skipping fsync, the
 * wait for the WAL flush and full-page images makes every commit, CREATE DATABASE and crash recovery cheaper. A
 * killed postmaster (the fault tests) still replays its WAL on restart; only the flushes to disk are skipped.
 * Autovacuum is off: its workers would visit each of the run's ~100 short-lived databases to vacuum and analyse
 * tables that the test drops minutes later (the import analyses what it loads itself).
 */
export const RELAXED_SETTINGS = {
  fsync: 'off',
  synchronous_commit: 'off',
  full_page_writes: 'off',
  autovacuum: 'off',
} as const

/** Applies RELAXED_SETTINGS (all reloadable, so no restart) and fails if the server ignored them. */
export async function relaxDurability(admin: pg.Client): Promise<void> {
  for (const [name, value] of Object.entries(RELAXED_SETTINGS)) await admin.query(`alter system set ${name} = ${value}`)
  await admin.query('select pg_reload_conf()')
  // pg_reload_conf only signals the postmaster; poll until this session sees the new values
  for (let attempt = 0; ; attempt++) {
    const { rows } = await admin.query<{ name: string; setting: string }>(
      'select name, setting from pg_settings where name = any($1)',
      [Object.keys(RELAXED_SETTINGS)],
    )
    const applied = (r: { name: string; setting: string }) =>
      r.setting === RELAXED_SETTINGS[r.name as keyof typeof RELAXED_SETTINGS]
    if (rows.length === Object.keys(RELAXED_SETTINGS).length && rows.every(applied)) return
    if (attempt >= 50) throw new Error(`test postgres ignored the relaxed settings: ${JSON.stringify(rows)}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

/**
 * Stores the connecting role's password again with one SCRAM iteration instead of 4096: a client derives its key
 * with PBKDF2 on every connection (2.6 ms of CPU here), and a run opens some 1,600 of them to its throwaway cluster.
 * The password stays the same, so every URL and the password file still hold.
 */
export async function cheapenLogins(admin: pg.Client, password: string): Promise<void> {
  await admin.query('set scram_iterations = 1')
  await admin.query(`alter role current_user password ${admin.escapeLiteral(password)}`)
  const { rows } = await admin.query<{ verifier: string }>(
    'select rolpassword as verifier from pg_authid where rolname = current_user',
  )
  if (!rows[0]?.verifier.startsWith('SCRAM-SHA-256$1:'))
    throw new Error(`test postgres kept its password's iterations: ${rows[0]?.verifier.split(':')[0]}`)
}
