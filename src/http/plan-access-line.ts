import pino, { type Logger } from 'pino'
import type { PlanResult } from '../services/plan.service.js'

/** What one served request adds to the plan access line's fields bound for its bytes. */
export interface PlanLineFields {
  readonly reqId: string
  readonly client: string | undefined
  readonly cache: PlanResult['cache']
  /** As the request gave it, at most 40 characters. */
  readonly format: string
  readonly status: number
  readonly elapsed_s: number
}

export type PlanLine = (fields: PlanLineFields) => void

const MESSAGE = 'plan served'
const INFO = 30
const FIELD_KEYS = ['reqId', 'client', 'cache', 'format', 'status', 'elapsed_s', 'msg'] as const

type Internals = Record<symbol, unknown>
const sym = pino.symbols as typeof pino.symbols & { readonly msgPrefixSym?: symbol }

/**
 * The spec's plan access line for one response's bytes: `bindings` (the fields fixed for these bytes) are bound once
 * in a child logger, and each request's line is the child's own prefix (level, time, pid, hostname and the bindings,
 * as pino serialised them once) followed by the request's fields, written to the child's stream. It is the line
 * `child.info(fields, 'plan served')` writes, without pino's per-call walk over the object (a serializer and
 * stringifier lookup per key): a cached `GET /plan` writes one per request (bench/cached-plan.bench.ts). Where the
 * logger changes what a line holds (a serializer, redaction or stringifier of one of these keys, a mixin, a log
 * formatter or hook, a message prefix, a nested key, a stream that reads metadata), it is pino's `info` itself.
 * Strings are escaped by `JSON.stringify`.
 */
export function planAccessLine(root: Logger, bindings: Record<string, unknown>): PlanLine {
  const child = root.child(bindings)
  const viaPino: PlanLine = (fields) => child.info(fields, MESSAGE)
  const internals = child as unknown as Internals
  if (!writesFieldsAsGiven(child)) return viaPino
  const start = (internals[sym.lsCacheSym] as Record<number, string>)[INFO]
  const time = internals[sym.timeSym] as () => string
  const bound = internals[sym.chindingsSym] as string
  const stream = internals[sym.streamSym] as pino.DestinationStream
  const end = `,"msg":${JSON.stringify(MESSAGE)}${internals[sym.endSym] as string}`
  return (fields) => {
    if (!child.isLevelEnabled('info')) return
    const client = fields.client === undefined ? '' : `,"client":${JSON.stringify(fields.client)}`
    stream.write(
      `${start}${time()}${bound},"reqId":${JSON.stringify(fields.reqId)}${client},"cache":${JSON.stringify(fields.cache)},"format":${JSON.stringify(fields.format)},"status":${jsonNumber(fields.status)},"elapsed_s":${jsonNumber(fields.elapsed_s)}${end}`,
    )
  }
}

function jsonNumber(value: number): string {
  return Number.isFinite(value) ? String(value) : 'null'
}

/** Whether pino would write this logger's `info(fields, MESSAGE)` exactly as the fields and message are. */
export function writesFieldsAsGiven(logger: Logger): boolean {
  const internals = logger as unknown as Internals
  const serializers = (internals[sym.serializersSym] ?? {}) as Record<string, unknown>
  const stringifiers = (internals[sym.stringifiersSym] ?? {}) as Record<string | symbol, unknown>
  const formatters = (internals[sym.formattersSym] ?? {}) as { log?: unknown }
  const hooks = (internals[sym.hooksSym] ?? {}) as { logMethod?: unknown; streamWrite?: unknown }
  const stream = internals[sym.streamSym] as (Internals & { write?: unknown }) | undefined
  const lsCache = internals[sym.lsCacheSym] as Record<number, unknown> | undefined
  return (
    typeof lsCache?.[INFO] === 'string' &&
    typeof internals[sym.timeSym] === 'function' &&
    typeof internals[sym.chindingsSym] === 'string' &&
    typeof internals[sym.endSym] === 'string' &&
    typeof stream?.write === 'function' &&
    stream[sym.needsMetadataGsym] !== true &&
    internals[sym.messageKeySym] === 'msg' &&
    !internals[sym.nestedKeySym] &&
    !internals[sym.mixinSym] &&
    (sym.msgPrefixSym === undefined || internals[sym.msgPrefixSym] === undefined) &&
    formatters.log === undefined &&
    hooks.logMethod === undefined &&
    hooks.streamWrite === undefined &&
    stringifiers[sym.wildcardFirstSym] === undefined &&
    FIELD_KEYS.every((key) => serializers[key] === undefined && stringifiers[key] === undefined)
  )
}
