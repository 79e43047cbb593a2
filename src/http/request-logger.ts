import type { FastifyBaseLogger } from 'fastify'
import type { Bindings, ChildLoggerOptions } from 'pino'
import type { Logger } from '../logger.js'

/**
 * Fastify's per-request logger (`req.log`), made only when a request logs through it. Fastify otherwise builds a
 * pino child (bindings serialised, serializers and redaction set up) for every request, although a served request
 * writes its one access line through the root logger and only errors and warnings use `req.log`.
 */
class LazyRequestLogger {
  #child: Logger | undefined
  readonly #root: Logger
  readonly #bindings: Bindings
  readonly #options: ChildLoggerOptions
  constructor(root: Logger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#root = root
    this.#bindings = bindings
    this.#options = options
  }

  get #log(): Logger {
    this.#child ??= this.#root.child(this.#bindings, this.#options)
    return this.#child
  }
  get level(): string {
    return this.#child?.level ?? this.#options.level ?? this.#root.level
  }
  set level(level: string) {
    this.#log.level = level
  }
  isLevelEnabled(level: string): boolean {
    return (this.#child ?? this.#root).isLevelEnabled(level)
  }
  fatal(...args: unknown[]): void {
    Reflect.apply(this.#log.fatal, this.#log, args)
  }
  error(...args: unknown[]): void {
    Reflect.apply(this.#log.error, this.#log, args)
  }
  warn(...args: unknown[]): void {
    Reflect.apply(this.#log.warn, this.#log, args)
  }
  info(...args: unknown[]): void {
    Reflect.apply(this.#log.info, this.#log, args)
  }
  debug(...args: unknown[]): void {
    Reflect.apply(this.#log.debug, this.#log, args)
  }
  trace(...args: unknown[]): void {
    Reflect.apply(this.#log.trace, this.#log, args)
  }
  silent(): void {}
  child(bindings: Bindings, options?: ChildLoggerOptions): Logger {
    return this.#log.child(bindings, options)
  }
}

/** Fastify's `childLoggerFactory` option. */
export function lazyRequestLogger(
  this: unknown,
  root: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  return new LazyRequestLogger(root as unknown as Logger, bindings, options) as unknown as FastifyBaseLogger
}
