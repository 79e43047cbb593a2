import { isIP } from 'node:net'
import path from 'node:path'
import { redactUrl } from './redact.js'

/** Typed, validated, frozen configuration. The only module that reads process.env. */
export interface Config {
  readonly port: number
  readonly host: string
  /** ALLOWED_HOSTS: the `Host` names (optionally `name:port`) answered; undefined answers any (the default). */
  readonly allowedHosts: readonly string[] | undefined
  /** ALLOWED_ORIGINS: other origins (`scheme://host[:port]`) whose pages may POST; the service's own always may. */
  readonly allowedOrigins: readonly string[]
  /** Unset: embedded PostgreSQL in `pgDataDir`. */
  readonly databaseUrl: string | undefined
  readonly pgDataDir: string
  /** PG_PORT: the port the embedded PostgreSQL starts on; unset: the port it had last time if free, else any free one. */
  readonly pgPort: number | undefined
  readonly planDataDir: string
  /** Where `stockplan demo` writes its CSVs. */
  readonly demoDataDir: string
  readonly planFromSnapshot: boolean
  readonly planCacheSec: number
  /** How often the plan-written listener proves its connection alive (it gives up 2 s after a missed beat). */
  readonly storeHeartbeatMs: number
  readonly poolTop: number
  readonly poolMax: number
  readonly poolPushUrl: string | undefined
  /** PLAN_BOOK_SIZE_CNY: the book the plan is built for; entry and stay weigh each trade's cost at this size. */
  readonly planBookSizeCny: number
  /** STOCKPLAN_COMMIT: the commit the code version names; unset, `resolveCodeVersion` asks git once. */
  readonly codeCommit: string | undefined
  readonly xxlJob: {
    readonly accessToken: string | undefined
    readonly adminAddresses: readonly string[]
    readonly appName: string
    readonly executorAddress: string | undefined
    /** Chain children running at once; further runs wait in the queue. */
    readonly maxRunning: number
    /** Runs waiting for a free child; a run beyond this is refused. */
    readonly maxQueued: number
  }
  readonly tushare: {
    /** TUSHARE_TOKEN: set = `sync` works and the chain syncs first. Never logged. */
    readonly token: string | undefined
    readonly url: string
    /** Calls a minute per interface (0 = unpaced); `rateLimits` overrides it per interface. */
    readonly callsPerMinute: number
    readonly rateLimits: Readonly<Record<string, number>>
    /** TUSHARE_CALL_TIMEOUT_MS: one call, answer read whole. */
    readonly callTimeoutMs: number
    /** TUSHARE_SYNC_TIMEOUT_MIN: the whole sync, in milliseconds. */
    readonly syncTimeoutMs: number
    /** TUSHARE_MAX_ANSWER_BYTES: bytes one query's answers may have, all its pages together. */
    readonly maxAnswerBytes: number
    /** TUSHARE_MAX_PAGES: pages one query may follow. */
    readonly maxPages: number
    /** TUSHARE_REPORT_DAYS: trading days whose announcement dates each sync asks for again. */
    readonly reportWindowDays: number
  }
  /** Deadlines and caps of HTTP connections (see src/http/connection-limits.ts). */
  readonly http: {
    readonly firstByteTimeoutMs: number
    readonly keepAliveTimeoutMs: number
    readonly headersTimeoutMs: number
    readonly requestTimeoutMs: number
    /** HTTP_SEND_TIMEOUT_MS: an answer the client takes no byte of for this long closes its connection. */
    readonly sendTimeoutMs: number
    /** HTTP_MAX_CONNECTIONS; unset: derived from the process's descriptor limit when the server starts. */
    readonly maxConnections: number | undefined
    readonly maxConnectionsPerClient: number
  }
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'
}

export class ConfigError extends Error {
  override name = 'ConfigError'
}

type Env = Record<string, string | undefined>

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

function text(env: Env, key: string): string | undefined {
  const value = env[key]?.trim()
  return value === undefined || value === '' ? undefined : value
}

function integer(env: Env, key: string, fallback: number, min: number, max: number): number {
  const raw = text(env, key)
  if (raw === undefined) return fallback
  if (!/^-?\d+$/.test(raw)) throw new ConfigError(`${key} must be an integer, got "${raw}"`)
  const value = Number(raw)
  if (value < min || value > max) throw new ConfigError(`${key} must be between ${min} and ${max}, got ${value}`)
  return value
}

function flag(env: Env, key: string, fallback: boolean): boolean {
  const raw = text(env, key)?.toLowerCase()
  if (raw === undefined) return fallback
  if (['0', 'false', 'no', 'off'].includes(raw)) return false
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true
  throw new ConfigError(`${key} must be one of 1/true/yes/on or 0/false/no/off, got "${raw}"`)
}

function url(env: Env, key: string, protocols: readonly string[]): string | undefined {
  const raw = text(env, key)
  if (raw === undefined) return undefined
  let parsed: URL
  try {
    parsed = new URL(raw)
  } catch {
    throw new ConfigError(`${key} must be a URL, got "${redactUrl(raw)}"`)
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${key} must use ${protocols.join(' or ')}, got "${parsed.protocol}"`)
  }
  return raw
}

function list(env: Env, key: string): string[] {
  return (text(env, key) ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
}

function hostList(env: Env, key: string): readonly string[] | undefined {
  const hosts = list(env, key).map((h) => h.toLowerCase())
  for (const host of hosts)
    if (!/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$/.test(host))
      throw new ConfigError(`${key} must list host names (host or host:port), got "${host}"`)
  return hosts.length === 0 ? undefined : Object.freeze(hosts)
}

function originList(env: Env, key: string): readonly string[] {
  return Object.freeze(
    list(env, key).map((raw) => {
      const origin = url({ [key]: raw }, key, ['http:', 'https:']) ?? raw
      const parsed = new URL(origin)
      if (parsed.origin !== origin.replace(/\/$/, ''))
        throw new ConfigError(`${key} must list origins (scheme://host[:port], no path), got "${redactUrl(raw)}"`)
      return parsed.origin
    }),
  )
}

/** `daily=500,adj_factor=500`: calls a minute per tushare interface. */
function rateLimits(env: Env, key: string): Record<string, number> {
  const limits: Record<string, number> = {}
  for (const part of (text(env, key) ?? '').split(',')) {
    if (part.trim() === '') continue
    const match = /^\s*([a-z_]+)\s*=\s*(\d+)\s*$/.exec(part)
    if (!match) throw new ConfigError(`${key} must be a list like daily=500,adj_factor=500, got "${part.trim()}"`)
    limits[match[1]!] = Number(match[2])
  }
  return limits
}

function httpLimits(env: Env): Config['http'] {
  const headersTimeoutMs = integer(env, 'HTTP_HEADERS_TIMEOUT_MS', 10_000, 100, 600_000)
  const requestTimeoutMs = integer(env, 'HTTP_REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000)
  if (requestTimeoutMs < headersTimeoutMs)
    throw new ConfigError(
      `HTTP_REQUEST_TIMEOUT_MS (${requestTimeoutMs}) must not be below HTTP_HEADERS_TIMEOUT_MS (${headersTimeoutMs})`,
    )
  const maxConnections = text(env, 'HTTP_MAX_CONNECTIONS')
  return Object.freeze({
    firstByteTimeoutMs: integer(env, 'HTTP_FIRST_BYTE_TIMEOUT_MS', 10_000, 100, 60_000),
    keepAliveTimeoutMs: integer(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 55_000, 1000, 600_000),
    headersTimeoutMs,
    requestTimeoutMs,
    sendTimeoutMs: integer(env, 'HTTP_SEND_TIMEOUT_MS', 30_000, 100, 600_000),
    maxConnections: maxConnections === undefined ? undefined : integer(env, 'HTTP_MAX_CONNECTIONS', 0, 1, 1_000_000),
    maxConnectionsPerClient: integer(env, 'HTTP_MAX_CONNECTIONS_PER_CLIENT', 64, 1, 1_000_000),
  })
}

/**
 * True for a URL whose host is a loopback address written as an IP literal: 127.0.0.0/8 or ::1. A name is never
 * taken as loopback, however it begins (`127.evil.example`, `127.0.0.1.nip.io` resolve wherever their owner likes);
 * the URL parser has already turned `127.1` or `0x7f.0.0.1` into dotted form.
 */
export function isLoopbackUrl(value: string): boolean {
  const host = new URL(value).hostname
  if (host === '[::1]') return true
  return isIP(host) === 4 && host.startsWith('127.')
}

/** TUSHARE_URL: https, or plain http only to this machine or with TUSHARE_ALLOW_HTTP (the token rides in bodies). */
function tushareUrl(env: Env): string {
  const value = url(env, 'TUSHARE_URL', ['http:', 'https:']) ?? 'https://api.tushare.pro'
  const parsed = new URL(value)
  if (parsed.protocol === 'http:' && !isLoopbackUrl(value) && !flag(env, 'TUSHARE_ALLOW_HTTP', false)) {
    throw new ConfigError(
      `TUSHARE_URL is plain http (${redactUrl(value)}): the token would travel unencrypted; use https, or set TUSHARE_ALLOW_HTTP=1 to allow it`,
    )
  }
  return value
}

export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): Config {
  const logLevel = (text(env, 'LOG_LEVEL') ?? 'info').toLowerCase()
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`)
  }
  const poolTop = integer(env, 'POOL_TOP', 20, 1, 1000)
  const poolMax = integer(env, 'POOL_MAX', 50, 1, 5000)
  if (poolMax < poolTop) throw new ConfigError(`POOL_MAX (${poolMax}) must not be below POOL_TOP (${poolTop})`)
  const adminAddresses = (text(env, 'XXLJOB_ADMIN_ADDRESSES') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
  for (const address of adminAddresses)
    url({ XXLJOB_ADMIN_ADDRESSES: address }, 'XXLJOB_ADMIN_ADDRESSES', ['http:', 'https:'])
  return Object.freeze({
    port: integer(env, 'PORT', 8300, 0, 65535),
    host: text(env, 'HOST') ?? '0.0.0.0',
    allowedHosts: hostList(env, 'ALLOWED_HOSTS'),
    allowedOrigins: originList(env, 'ALLOWED_ORIGINS'),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    pgDataDir: path.resolve(cwd, text(env, 'PG_DATA_DIR') ?? 'var/pg'),
    pgPort: text(env, 'PG_PORT') === undefined ? undefined : integer(env, 'PG_PORT', 0, 1, 65535),
    planDataDir: path.resolve(cwd, text(env, 'PLAN_DATA_DIR') ?? 'var/plan'),
    demoDataDir: path.resolve(cwd, text(env, 'DEMO_DATA_DIR') ?? 'var/demo'),
    planFromSnapshot: flag(env, 'PLAN_FROM_SNAPSHOT', true),
    planCacheSec: integer(env, 'PLAN_CACHE_SEC', 43200, 0, 10 * 365 * 86400),
    storeHeartbeatMs: integer(env, 'STORE_HEARTBEAT_MS', 5000, 100, 600_000),
    poolTop,
    poolMax,
    poolPushUrl: url(env, 'POOL_PUSH_URL', ['http:', 'https:']),
    planBookSizeCny: integer(env, 'PLAN_BOOK_SIZE_CNY', 100_000_000, 1_000_000, 100_000_000_000),
    codeCommit: text(env, 'STOCKPLAN_COMMIT'),
    xxlJob: Object.freeze({
      accessToken: text(env, 'XXLJOB_ACCESS_TOKEN'),
      adminAddresses: Object.freeze(adminAddresses),
      appName: text(env, 'XXLJOB_APPNAME') ?? 'daily-plan-service',
      executorAddress: url(env, 'XXLJOB_EXECUTOR_ADDRESS', ['http:', 'https:']),
      maxRunning: integer(env, 'XXLJOB_MAX_RUNNING', 2, 1, 64),
      maxQueued: integer(env, 'XXLJOB_MAX_QUEUED', 20, 0, 10_000),
    }),
    tushare: Object.freeze({
      token: text(env, 'TUSHARE_TOKEN'),
      url: tushareUrl(env),
      callsPerMinute: integer(env, 'TUSHARE_CALLS_PER_MIN', 200, 0, 100_000),
      rateLimits: Object.freeze(rateLimits(env, 'TUSHARE_RATE_LIMITS')),
      callTimeoutMs: integer(env, 'TUSHARE_CALL_TIMEOUT_MS', 60_000, 100, 3_600_000),
      syncTimeoutMs: integer(env, 'TUSHARE_SYNC_TIMEOUT_MIN', 120, 1, 24 * 60) * 60_000,
      maxAnswerBytes: integer(env, 'TUSHARE_MAX_ANSWER_BYTES', 64 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
      maxPages: integer(env, 'TUSHARE_MAX_PAGES', 50, 1, 10_000),
      reportWindowDays: integer(env, 'TUSHARE_REPORT_DAYS', 5, 0, 60),
    }),
    http: httpLimits(env),
    logLevel: logLevel as Config['logLevel'],
  })
}

/** This process's environment, for a child process that must see what it sees (the scheduler's job commands). */
export function processEnvironment(): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value
  return env
}

/** The PATH a helper binary (initdb, pg_ctl) is looked up in. */
export function processPath(): string {
  return process.env.PATH ?? '/usr/bin:/bin'
}
