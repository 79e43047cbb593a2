import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads'
import { processEnvironment } from '../config.js'
import type { Progress } from '../jobs/progress.js'

/** What a command worker tells the main thread: a call on the main thread's progress. */
interface ProgressMessage {
  readonly progress: 'start' | 'tick' | 'done'
  readonly args: unknown[]
}

const MARK = 'stockplanCommandWorker'

/** True inside the worker thread `runCommandInWorker` started (the command then does its work itself). */
export function inCommandWorker(): boolean {
  return !isMainThread && (workerData as Record<string, unknown> | null)?.[MARK] === true
}

/**
 * Runs this same CLI invocation again in a worker thread with a young generation of `youngGenerationMb` (V8 fixes
 * a heap's sizes when it starts, so only a new thread gets them; a second process would outlive a killed first).
 * The worker's progress is drawn by `progress` here; SIGINT and SIGTERM ask it to stop. Resolves with its exit code.
 */
export function runCommandInWorker(options: { youngGenerationMb: number; progress: Progress }): Promise<number> {
  const worker = new Worker(process.argv[1]!, {
    argv: process.argv.slice(2),
    execArgv: process.execArgv,
    workerData: { [MARK]: true },
    // the commands run in a worker (replay) never sync: they get no tushare token
    env: withoutTushareToken(processEnvironment()),
    resourceLimits: { maxYoungGenerationSizeMb: options.youngGenerationMb },
  })
  const stop = (): void => worker.postMessage('abort')
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
  worker.on('message', (message: ProgressMessage) => {
    const call = options.progress[message.progress] as (...args: unknown[]) => void
    call.apply(options.progress, message.args)
  })
  return new Promise<number>((resolve) => {
    let failure: Error | undefined
    worker.on('error', (error) => {
      failure = error
    })
    worker.on('exit', (code) => {
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
      // an error the command did not catch (the thread ran out of memory, say) still ends the run as failed
      if (failure) console.error(`error: ${failure.message}`)
      resolve(failure && code === 0 ? 1 : code)
    })
  })
}

/** The environment less TUSHARE_TOKEN: only a process that syncs holds the token. */
export function withoutTushareToken(env: Readonly<Record<string, string>>): Record<string, string> {
  const { TUSHARE_TOKEN: _token, ...rest } = env
  return rest
}

/** Inside a command worker: a progress drawn by the main thread. */
export function mainThreadProgress(): Progress {
  const post = (progress: ProgressMessage['progress'], args: unknown[]): void =>
    parentPort!.postMessage({ progress, args } satisfies ProgressMessage)
  return {
    start: (...args) => post('start', args),
    tick: (...args) => post('tick', args),
    done: (...args) => post('done', args),
  }
}

/** Inside a command worker: aborted when the main thread is asked to stop (workers receive no signals). */
export function mainThreadStop(): AbortSignal {
  const controller = new AbortController()
  const onMessage = (message: unknown): void => {
    if (message !== 'abort') return
    controller.abort(new Error('interrupted'))
    parentPort!.off('message', onMessage)
  }
  parentPort!.on('message', onMessage)
  // the port must not keep the worker alive once its command is done
  parentPort!.unref()
  return controller.signal
}
