import { execFile } from 'node:child_process'
import path from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'

const run = promisify(execFile)
const PG_MODULE = path.resolve('node_modules/pg/lib/index.js')

/** What a connection attempt as `postgres` without a password (and with the usual guess) ends with: the error text, or 'connected'. */
export async function connectAs(port: number, password: string | undefined): Promise<string> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres' })
  try {
    await client.connect()
    return 'connected'
  } catch (err) {
    return String(err)
  } finally {
    await client.end().catch(() => undefined)
  }
}

/**
 * As another OS user (a process started with its uid): reading the password file, and connecting as the superuser
 * with no password and with the password `postgres`. Each outcome as text (`ok`/`connected`, else the error).
 */
export async function asOtherUser(
  user: string,
  secretFile: string,
  port: number,
): Promise<{ read: string; connect: string }> {
  const uid = Number((await run('id', ['-u', user])).stdout.trim())
  const gid = Number((await run('id', ['-g', user])).stdout.trim())
  const script = `
    import { readFileSync } from 'node:fs'
    import { createRequire } from 'node:module'
    const pg = createRequire(import.meta.url)(${JSON.stringify(PG_MODULE)})
    let read = 'ok'
    try { readFileSync(${JSON.stringify(secretFile)}) } catch (err) { read = String(err) }
    const tries = []
    for (const password of [undefined, 'postgres']) {
      const client = new pg.Client({ host: '127.0.0.1', port: ${port}, user: 'postgres', password, database: 'postgres' })
      try { await client.connect(); tries.push('connected') } catch (err) { tries.push(String(err)) }
      await client.end().catch(() => {})
    }
    console.log(JSON.stringify({ read, connect: tries.join(' | ') }))
  `
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { uid, gid, cwd: '/' })
  return JSON.parse(stdout) as { read: string; connect: string }
}
