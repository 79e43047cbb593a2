import type { Services } from './compose.js'
import type { HandlerName, RunHandler, XxlJobExecutor, XxlJobTiming } from './scheduler/index.js'
import { createXxlJobExecutor } from './scheduler/index.js'
import type { Metrics } from './services/metrics.js'

const RESULT: Record<number, string> = { 200: 'success', 500: 'failure', 502: 'timeout' }

/** The XXL-JOB handlers call the same job functions as the CLI; undefined when no trigger key is set. */
export function createScheduler(
  services: Services,
  metrics: Metrics,
  options: { timing?: Partial<XxlJobTiming> } = {},
): XxlJobExecutor | undefined {
  const { config } = services
  if (!config.xxlJob.accessToken) return undefined
  const step =
    (name: 'build' | 'plan' | 'push-pool'): RunHandler =>
    async (args, ctx) => {
      await ctx.log(`[${name}] start`)
      const result = await services.steps[name](args, ctx.signal)
      await ctx.log(`[${name}] ok ${result.summary}`)
      return result
    }
  const handlers: Record<HandlerName, RunHandler> = {
    dailyPlanChain: (args, ctx) =>
      services.chain(args, ctx.signal, {
        refuseIfBusy: ctx.refuseIfBusy,
        draining: ctx.draining,
        onStep: (name, event, detail) => ctx.log(`[${name}] ${event}${detail ? ` ${detail}` : ''}`),
      }),
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
    timing: options.timing,
  })
  metrics.setSchedulerStatus(() => executor.status())
  return executor
}
