import { mkdir, stat } from 'node:fs/promises'
import path from 'node:path'
import pg from 'pg'
import { redactUrlsIn } from '../redact.js'

/** A start-up failure whose message names the setting at fault and the fix; shown to the operator as is. */
export class StartupError extends Error {
  override name = 'StartupError'
}

/** `host:port/database` of a PostgreSQL URL, without the password. */
export function describeUrl(url: string): string {
  try {
    const u = new URL(url)
    return `${u.hostname}:${u.port || '5432'}${u.pathname}`
  } catch {
    return 'an unparsable URL'
  }
}

/** What to do about a failed connection to DATABASE_URL. */
export function databaseUrlError(err: unknown, url: string, timeoutMs: number): StartupError {
  const e = err as { code?: string; message?: string }
  const where = `DATABASE_URL (${describeUrl(url)})`
  const database = (() => {
    try {
      return decodeURIComponent(new URL(url).pathname.slice(1)) || 'postgres'
    } catch {
      return '?'
    }
  })()
  const unset = 'or unset DATABASE_URL to use the embedded database'
  const message = redactUrlsIn(e?.message ?? String(err))
  if (e?.code === 'ECONNREFUSED')
    return new StartupError(
      `cannot connect to ${where}: connection refused; start PostgreSQL there, correct the host/port, ${unset}`,
    )
  if (e?.code === 'ENOTFOUND' || e?.code === 'EAI_AGAIN')
    return new StartupError(`cannot resolve the host of ${where}; correct the host name, ${unset}`)
  if (e?.code === '3D000')
    return new StartupError(
      `database "${database}" does not exist at ${where}; create it (createdb ${database}) or name an existing one in the URL`,
    )
  if (e?.code === '28P01' || e?.code === '28000')
    return new StartupError(
      `PostgreSQL refused the login of ${where} (${message}); correct the user/password in the URL`,
    )
  if (e?.code === '57P03')
    return new StartupError(`PostgreSQL at ${where} is starting up or shutting down; retry once it is up`)
  if (/timeout/i.test(message))
    return new StartupError(
      `no answer from ${where} within ${timeoutMs / 1000} s (a firewall or a stopped server?); check the host/port and that PostgreSQL is running, ${unset}`,
    )
  return new StartupError(`cannot use ${where}: ${message}; check the URL and the server, ${unset}`)
}

/** Connects once, with a deadline, so a bad DATABASE_URL is reported as such before migrations run. */
export async function probeDatabaseUrl(url: string, timeoutMs = 4000): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs })
  client.on('error', () => undefined)
  try {
    await client.connect()
    await client.query('select 1')
  } catch (err) {
    throw databaseUrlError(err, url, timeoutMs)
  } finally {
    const stream = (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream
    stream?.destroy()
    client.end().catch(() => undefined)
  }
}

function fsReason(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code
  switch (code) {
    case 'EROFS':
      return 'is on a read-only file system'
    case 'EACCES':
    case 'EPERM':
      return 'is not writable by this user'
    case 'ENOSPC':
      return 'is on a full file system'
    case 'ENOTDIR':
    case 'EEXIST':
      return 'is under a regular file, not a directory'
    case 'ENOENT':
      return 'cannot be created there (no such parent, or a virtual file system)'
    default:
      return `cannot be created (${code ?? (err as Error).message})`
  }
}

/** A directory setting's failure, naming the setting, the path and the fix. */
export function directoryError(setting: string, dir: string, err: unknown): StartupError {
  return new StartupError(`${setting}=${dir} ${fsReason(err)}; set ${setting} to a writable directory on a local disk`)
}

/**
 * Creates `dir` and its missing parents one level at a time. Node's recursive mkdir loops forever under
 * /proc (`/proc/nope/pg`), and names no setting when a parent is a regular file.
 */
export async function ensureDirectory(setting: string, dir: string, value: string = dir): Promise<void> {
  const missing: string[] = []
  let at = path.resolve(dir)
  for (;;) {
    const found = await stat(at).catch((err: NodeJS.ErrnoException) => err)
    if (!(found instanceof Error)) {
      if (!found.isDirectory()) {
        throw new StartupError(
          `${setting}=${value} is under ${at}, which is a regular file, not a directory; set ${setting} to a directory path`,
        )
      }
      break
    }
    if (found.code === 'ENOTDIR') {
      at = path.dirname(at)
      missing.length = 0
      continue
    }
    if (found.code !== 'ENOENT') throw directoryError(setting, value, found)
    missing.unshift(at)
    const parent = path.dirname(at)
    if (parent === at) break
    at = parent
  }
  for (const level of missing) {
    await mkdir(level).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw directoryError(setting, value, err)
    })
  }
}
