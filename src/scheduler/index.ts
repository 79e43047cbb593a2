/** The XXL-JOB executor: `createXxlJobExecutor(deps)` gives the Fastify plugin (mount under `/api/v1/xxljob`) and its lifecycle. */

export { type ChildJobContext, jobEnvironment, runCliJob, syncEnvironment } from './child-runner.js'
export {
  DEFAULT_TIMING,
  type ExecutorStatus,
  HANDLER_NAMES,
  type HandlerName,
  type RunContext,
  type RunHandler,
  type XxlJobDeps,
  type XxlJobExecutor,
  type XxlJobTiming,
} from './contract.js'
export { createXxlJobExecutor } from './executor.js'
