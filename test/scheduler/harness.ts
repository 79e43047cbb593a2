import { Writable } from 'node:stream'
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import pino from 'pino'
import { installErrorHandler } from '../../src/http/plugins/error-handler.js'
import type { DateArgs } from '../../src/jobs/job.js'
import type { Logger } from '../../src/logger.js'
import {
  createXxlJobExecutor,
  type HandlerName,
  type RunContext,
  type RunHandler,
  type XxlJobDeps,
  type XxlJobExecutor,
  type XxlJobTiming,
} from '../../src/scheduler/index.js'
import { XXLJOB_PREFIX } from '../../src/scheduler-wiring.js'
import type { Db } from '../../src/storage/db.js'

export const TOKEN = 'tok-9f8e7d6c5b4a-secret'
export const PREFIX = XXLJOB_PREFIX

/** Fast timings: every loop of the executor turns in tens of milliseconds. */
export const FAST: Partial<XxlJobTiming> = {
  retryDelaysMs: [50, 100, 150],
  registryIntervalMs: 100,
  heartbeatIntervalMs: 100,
  staleRunAfterMs: 60_000,
  drainTimeoutMs: 500,
  abortGraceMs: 300,
  adminTimeoutMs: 1_000,
  outboxPollMs: 200,
  outboxLeaseMs: 5_000,
}

/** A pino logger writing NDJSON lines into an array (to look for the token in everything that was logged). */
export function captureLogger(): { log: Logger; lines: string[] } {
  const lines: string[] = []
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'))
      done()
    },
  })
  return { log: pino({ level: 'trace' }, stream), lines }
}

/** A handler call the test resolves, fails or watches. */
export interface Call {
  readonly handler: HandlerName
  readonly args: DateArgs
  readonly ctx: RunContext
  release(summary?: string): void
  fail(err: unknown): void
}

/**
 * Handlers the test drives: each call waits until the test releases or fails it, or rejects with the abort
 * reason when its signal fires (a well-behaved chain step).
 */
export function controlledHandlers(): { handlers: Record<HandlerName, RunHandler>; calls: Call[] } {
  const calls: Call[] = []
  const make =
    (handler: HandlerName): RunHandler =>
    (args, ctx) =>
      new Promise((resolve, reject) => {
        calls.push({ handler, args, ctx, release: (summary = `${handler} ok`) => resolve({ summary }), fail: reject })
        ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true })
      })
  return {
    handlers: {
      dailyPlanChain: make('dailyPlanChain'),
      sync: make('sync'),
      build: make('build'),
      plan: make('plan'),
      pushPool: make('pushPool'),
    },
    calls,
  }
}

export interface Harness {
  readonly app: FastifyInstance
  readonly executor: XxlJobExecutor
  readonly logLines: string[]
  readonly finished: number[]
  post(
    op: string,
    body?: unknown,
    options?: { token?: string | null; contentType?: string | null },
  ): Promise<Record<string, unknown>>
  close(): Promise<void>
}

export interface HarnessOptions {
  readonly db: Db
  readonly handlers: Record<HandlerName, RunHandler>
  readonly adminUrl?: string
  /** Several admin addresses, tried in order (overrides adminUrl). */
  readonly adminUrls?: readonly string[]
  readonly executorAddress?: string
  readonly timing?: Partial<XxlJobTiming>
  readonly start?: boolean
  readonly limits?: XxlJobDeps['limits']
  readonly onRunRefused?: () => void
}

let addressSeq = 0

/** A small Fastify app with the executor's plugin under `/api/v1/xxljob`, as the lead wires it. */
export async function startHarness(options: HarnessOptions): Promise<Harness> {
  const { log, lines } = captureLogger()
  addressSeq += 1
  const config: XxlJobDeps['config'] = {
    accessToken: TOKEN,
    adminAddresses: options.adminUrls ?? (options.adminUrl ? [options.adminUrl] : []),
    appName: 'daily-plan-service',
    executorAddress: options.executorAddress ?? `http://10.0.0.${addressSeq}:8300/api/v1/xxljob/`,
  }
  const finished: number[] = []
  const executor = createXxlJobExecutor({
    db: options.db,
    log,
    config,
    handlers: options.handlers,
    timing: { ...FAST, ...options.timing },
    onRunFinished: (code) => finished.push(code),
    limits: options.limits,
    onRunRefused: options.onRunRefused,
  })
  const app = Fastify({ loggerInstance: log as FastifyBaseLogger })
  installErrorHandler(app)
  await app.register(executor.plugin, { prefix: PREFIX })
  await app.ready()
  if (options.start !== false) await executor.start()
  return {
    app,
    executor,
    logLines: lines,
    finished,
    async post(op, body, postOptions = {}) {
      const headers: Record<string, string> = {}
      const token = postOptions.token === undefined ? TOKEN : postOptions.token
      if (token !== null) headers['XXL-JOB-ACCESS-TOKEN'] = token
      const contentType =
        postOptions.contentType === undefined ? 'application/json;charset=UTF-8' : postOptions.contentType
      if (contentType !== null) headers['content-type'] = contentType
      const res = await app.inject({
        method: 'POST',
        url: `${PREFIX}/${op}`,
        headers,
        ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
      })
      if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}: ${res.body}`)
      return res.json()
    },
    async close() {
      await executor.close()
      await app.close()
    },
  }
}

/** The admin's TriggerParam (XJ@2.4.2 `XxlJobTrigger.processTrigger`). */
export function triggerParam(logId: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    jobId: 12,
    executorHandler: 'dailyPlanChain',
    executorParams: '{"tradeDate":"2024-06-03"}',
    executorBlockStrategy: 'SERIAL_EXECUTION',
    executorTimeout: 0,
    logId,
    logDateTime: 1717376400123,
    glueType: 'BEAN',
    glueSource: '',
    glueUpdatetime: 1717000000000,
    broadcastIndex: 0,
    broadcastTotal: 1,
    ...overrides,
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))
