import type { FastifyInstance } from 'fastify'
import type { StoreHandle } from './compose.js'
import { type Config, processEnvironment } from './config.js'
import type { Logger } from './logger.js'
import type { HandlerName, RunHandler, XxlJobExecutor, XxlJobTiming } from './scheduler/index.js'
import { createXxlJobExecutor, jobEnvironment, runCliJob, syncEnvironment } from './scheduler/index.js'
import type { Metrics } from './services/metrics.js'
import { resolveCodeVersion } from './version.js'

/** Where the executor's routes live; the XXL-JOB admin's executor address ends with this path and a slash. */
export const XXLJOB_PREFIX = '/api/v1/xxljob'

/** The executor's routes as an `extraPlugins` entry of `buildApp`. */
export function mountScheduler(executor: XxlJobExecutor): (app: FastifyInstance) => Promise<void> {
  return async (app) => {
    await app.register(executor.plugin, { prefix: XXLJOB_PREFIX })
  }
}

const RESULT: Record<number, string> = { 200: 'success', 500: 'failure', 502: 'timeout' }

/**
 * The XXL-JOB executor; undefined when no trigger key is set. Its handlers run the same job functions as the CLI,
 * through the CLI, in a child process each, so a chain never stalls the server's event loop.
 */
export function createScheduler(
  services: { readonly config: Config; readonly log: Logger; readonly store: StoreHandle },
  metrics: Metrics,
  options: { timing?: Partial<XxlJobTiming> } = {},
): XxlJobExecutor | undefined {
  const { config } = services
  if (!config.xxlJob.accessToken) return undefined
  const url = services.store.url
  if (!url) throw new Error('the scheduler runs jobs in child processes and needs the store URL')
  // resolved once here, so that no job process asks git for it
  const env = jobEnvironment(config, url, processEnvironment(), resolveCodeVersion(config.codeCommit).commit)
  // the tushare token goes to the processes that sync only
  const syncEnv = syncEnvironment(config, env)
  const dateArgs = (date: string | undefined): string[] => (date ? ['--date', date] : [])
  const step =
    (name: 'build' | 'plan' | 'push-pool'): RunHandler =>
    (args, ctx) =>
      runCliJob([name, '--no-record', ...dateArgs(args.date)], env, ctx)
  const handlers: Record<HandlerName, RunHandler> = {
    dailyPlanChain: (args, ctx) =>
      runCliJob(
        ['chain', '--no-record', ...dateArgs(args.date), ...(ctx.refuseIfBusy ? ['--no-wait'] : [])],
        syncEnv,
        ctx,
      ),
    // `sync` through the run's date when the trigger gives one
    sync: (args, ctx) => runCliJob(['sync', ...(args.date ? ['--to', args.date] : [])], syncEnv, ctx),
    build: step('build'),
    plan: step('plan'),
    pushPool: step('push-pool'),
  }
  const executor = createXxlJobExecutor({
    db: services.store.db,
    log: services.log,
    config: config.xxlJob,
    handlers,
    onRunFinished: (code) => metrics.chainRun(RESULT[code] ?? String(code)),
    limits: { maxRunning: config.xxlJob.maxRunning, maxQueued: config.xxlJob.maxQueued },
    onRunRefused: () => metrics.chainRun('refused'),
    timing: options.timing,
  })
  metrics.setSchedulerStatus(() => executor.status())
  return executor
}
