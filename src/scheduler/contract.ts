import type { FastifyPluginAsync } from 'fastify'
import type { Config } from '../config.js'
import type { DateArgs } from '../jobs/job.js'
import type { Logger } from '../logger.js'
import type { Db } from '../storage/db.js'

/** The executor's public contract: handler names, what a handler gets, the timing knobs, the deps and the API. */
export type HandlerName = 'dailyPlanChain' | 'sync' | 'build' | 'plan' | 'pushPool'
export const HANDLER_NAMES: readonly HandlerName[] = ['dailyPlanChain', 'sync', 'build', 'plan', 'pushPool']

export interface RunContext {
  /** Fires on kill, COVER_EARLY, timeout and a shutdown that outlasted the drain; its reason is a JobAbortedError. */
  readonly signal: AbortSignal
  /** Appends to the run log (what `/log` shows). `[step] text` names the current step; `\n` splits lines. */
  readonly log: (line: string) => Promise<void> | void
  /** true for DISCARD_LATER: the handler must refuse rather than wait when another replica holds the date's lock */
  readonly refuseIfBusy: boolean
  /** set when the service shuts down: handlers stop at the next step boundary (throw a JobAbortedError there) */
  readonly draining: () => boolean
}

/** Resolves with the one-line summary sent as the callback's handleMsg; throws to fail the run. */
export type RunHandler = (args: DateArgs, ctx: RunContext) => Promise<{ summary: string }>

/** Every delay of the executor; tests shorten them. */
export interface XxlJobTiming {
  /** Callback retry backoff per attempt; the last one repeats. */
  readonly retryDelaysMs: readonly number[]
  readonly registryIntervalMs: number
  /** How often this executor beats its live runs' heartbeat and sweeps for dead executors' runs. */
  readonly heartbeatIntervalMs: number
  /** A live run whose heartbeat is older than this belongs to a dead executor and is closed as failed. */
  readonly staleRunAfterMs: number
  /** close(): how long running handlers get to stop at a step boundary before they are aborted. */
  readonly drainTimeoutMs: number
  /** After an abort (kill, cover, timeout, shutdown): how long the handler gets to return before the run is closed anyway. */
  readonly abortGraceMs: number
  /** Per admin call (connect + reply), the Java executor's 3 s. */
  readonly adminTimeoutMs: number
  /** Longest idle wait of the callback loop. */
  readonly outboxPollMs: number
  /** How long a callback claimed for sending stays invisible to other replicas; above every retry delay. */
  readonly outboxLeaseMs: number
}

export const DEFAULT_TIMING: XxlJobTiming = Object.freeze({
  retryDelaysMs: Object.freeze([1_000, 5_000, 30_000]),
  registryIntervalMs: 30_000,
  heartbeatIntervalMs: 10_000,
  staleRunAfterMs: 60_000,
  drainTimeoutMs: 10_000,
  abortGraceMs: 5_000,
  adminTimeoutMs: 3_000,
  outboxPollMs: 30_000,
  outboxLeaseMs: 120_000,
})

export interface RunLimits {
  readonly maxRunning: number
  readonly maxQueued: number
}

export interface XxlJobDeps {
  readonly db: Db
  readonly log: Logger
  readonly config: Pick<Config['xxlJob'], 'accessToken' | 'adminAddresses' | 'appName' | 'executorAddress'>
  /** Runs at once across all jobs, and runs waiting; unbounded when not given. */
  readonly limits?: RunLimits
  /** Called once per run refused because the limits are reached: a metrics counter. */
  readonly onRunRefused?: () => void
  readonly handlers: Record<HandlerName, RunHandler>
  readonly now?: () => Date
  readonly fetch?: typeof fetch
  /** Called once per closed run with its handleCode (200, 500, 502): a metrics counter. */
  readonly onRunFinished?: (handleCode: number) => void
  readonly timing?: Partial<XxlJobTiming>
  /** Identifies this process as the owner of its runs; default `host:pid:random`. */
  readonly instanceId?: string
}

export interface ExecutorStatus {
  readonly running: number
  readonly queued: number
  /** Callbacks not yet acknowledged by an admin (the last known count if the database cannot be read). */
  readonly outboxPending: number
}

export interface XxlJobExecutor {
  /** Register with `{ prefix: '/api/v1/xxljob' }`, only when `config.accessToken` is set (it throws otherwise). */
  readonly plugin: FastifyPluginAsync
  /** Closes dead executors' runs, resumes callback delivery and starts the registry beat. */
  start(): Promise<void>
  /** Drains: refuses new runs, fails queued ones, lets running ones stop (bounded), flushes callbacks, deregisters. */
  close(): Promise<void>
  status(): Promise<ExecutorStatus>
  readonly instanceId: string
}
