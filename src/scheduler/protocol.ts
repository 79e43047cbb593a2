import { redactUrlsIn } from '../redact.js'
/**
 * XXL-JOB executor wire protocol (2.2 - 3.4.2, with the 3.5 `/trigger` alias): message texts, reply envelopes and
 * lenient readers for the admin's request bodies. Texts are the Java executor's, byte for byte (the full-width
 * colon in the block-strategy messages included); see shared/reference/xxl-job-protocol.md §2-§5.
 */

/** Node lower-cases header names; the admin sends `XXL-JOB-ACCESS-TOKEN`. */
export const TOKEN_HEADER = 'xxl-job-access-token'
export const TOKEN_HEADER_OUT = 'XXL-JOB-ACCESS-TOKEN'

export const HANDLE_SUCCESS = 200
export const HANDLE_FAIL = 500
export const HANDLE_TIMEOUT = 502

/** The Java executor cuts a handle message at 50,000 characters. */
export const MAX_HANDLE_MSG = 50_000

export const MSG = {
  tokenWrong: 'The access token is wrong.',
  methodNotSupported: 'invalid request, HttpMethod not support.',
  uriEmpty: 'invalid request, uri-mapping empty.',
  uriNotFound: (uri: string) => `invalid request, uri-mapping(${uri}) not found.`,
  handlerNotFound: (name: string) => `job handler [${name}] not found.`,
  glueInvalid: (glueType: string) => `glueType[${glueType}] is not valid.`,
  repeatTrigger: (logId: number) => `repeate trigger job, logId:${logId}`,
  discardLater: 'block strategy effect：Discard Later',
  coverEarly: 'block strategy effect：Cover Early',
  busy: 'job thread is running or has trigger queue.',
  alreadyKilled: 'job thread already killed.',
  killReason: 'scheduling center kill job.',
  runningKilled: (reason: string) => `${reason} [job running, killed]`,
  queuedKilled: (reason: string) => `${reason} [job not executed, in the job queue, killed.]`,
  timeout: 'job execute timeout ',
  resultLost: 'job handle result lost.',
  restarted: 'executor restarted before the run finished',
  shuttingDown: 'executor shutting down',
  logNotFound: 'readLog fail, logFile not exists',
  tooManyRuns: (running: number, queued: number) =>
    `executor busy: ${running} runs running and ${queued} waiting, the most it takes ` +
    '(XXLJOB_MAX_RUNNING, XXLJOB_MAX_QUEUED); run refused, trigger it again later',
} as const

/** ReturnT (2.x: `content`) and Response (3.3+: `data`) in one envelope: Gson ignores the key it does not know. */
export interface ExecutorReply {
  readonly code: number
  readonly msg: string | null
  readonly content?: unknown
  readonly data?: unknown
}

export const ok = (msg: string | null = null): ExecutorReply => ({ code: HANDLE_SUCCESS, msg })
export const fail = (msg: string): ExecutorReply => ({ code: HANDLE_FAIL, msg })
export const okWith = (payload: unknown): ExecutorReply => ({
  code: HANDLE_SUCCESS,
  msg: null,
  content: payload,
  data: payload,
})

export const BLOCK_STRATEGIES = ['SERIAL_EXECUTION', 'DISCARD_LATER', 'COVER_EARLY'] as const
export type BlockStrategy = (typeof BLOCK_STRATEGIES)[number]

/** An unknown or missing strategy is "just queue", as in `ExecutorBizImpl.run`. */
export function resolveStrategy(raw: string | undefined): BlockStrategy {
  return (BLOCK_STRATEGIES as readonly string[]).includes(raw ?? '') ? (raw as BlockStrategy) : 'SERIAL_EXECUTION'
}

/** What a body parsed to: `undefined` for no body, `""` or blank; the JSON value; or the parse error. */
export type ParsedBody = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: string }

/** Lenient: any content type, an empty body, `""` (2.x beat) or JSON. */
export function parseBody(raw: unknown): ParsedBody {
  if (raw === undefined || raw === null) return { ok: true, value: undefined }
  if (typeof raw !== 'string') return { ok: true, value: raw }
  const text = raw.trim()
  if (text === '') return { ok: true, value: undefined }
  try {
    return { ok: true, value: JSON.parse(text) as unknown }
  } catch (err) {
    return { ok: false, error: `invalid request body: ${err instanceof Error ? err.message : String(err)}` }
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** An integer from a JSON number or a digit string (Gson coerces both into a Java int/long). */
function integerField(body: Record<string, unknown>, key: string): number | undefined {
  const value = body[key]
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value
  if (typeof value === 'string' && /^-?\d{1,15}$/.test(value.trim())) return Number(value.trim())
  return undefined
}

/** The columns behind jobId, executorTimeout and line numbers are PostgreSQL `integer` (Java `int` in the admin). */
const INT32_MIN = -(2 ** 31)
const INT32_MAX = 2 ** 31 - 1
const outOfInt32 = (value: number | undefined): boolean =>
  value !== undefined && (value < INT32_MIN || value > INT32_MAX)
const int32Msg = (key: string) => `invalid request body: ${key} must be an integer from ${INT32_MIN} to ${INT32_MAX}`

function stringField(body: Record<string, unknown>, key: string): string | undefined {
  const value = body[key]
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return undefined
}

export type Read<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly msg: string }

/** TriggerParam (XJ@2.4.2 `core/biz/model/TriggerParam.java`); null fields are absent on the wire. */
export interface TriggerParam {
  readonly jobId: number
  readonly logId: number
  readonly logDateTime: number | undefined
  readonly executorHandler: string
  readonly executorParams: string
  readonly executorBlockStrategy: string | undefined
  readonly executorTimeout: number
  readonly glueType: string | undefined
}

export function readTriggerParam(value: unknown): Read<TriggerParam> {
  if (!isRecord(value)) return { ok: false, msg: 'invalid request body: a TriggerParam JSON object is required' }
  const jobId = integerField(value, 'jobId')
  const logId = integerField(value, 'logId')
  if (jobId === undefined) return { ok: false, msg: 'invalid request body: jobId must be an integer' }
  if (logId === undefined) return { ok: false, msg: 'invalid request body: logId must be an integer' }
  const timeout = integerField(value, 'executorTimeout')
  if (outOfInt32(jobId)) return { ok: false, msg: int32Msg('jobId') }
  if (outOfInt32(timeout)) return { ok: false, msg: int32Msg('executorTimeout') }
  return {
    ok: true,
    value: {
      jobId,
      logId,
      logDateTime: integerField(value, 'logDateTime'),
      executorHandler: stringField(value, 'executorHandler') ?? '',
      executorParams: stringField(value, 'executorParams') ?? '',
      executorBlockStrategy: stringField(value, 'executorBlockStrategy'),
      executorTimeout: timeout !== undefined && timeout > 0 ? timeout : 0,
      glueType: stringField(value, 'glueType'),
    },
  }
}

/** `{jobId}` of idleBeat and kill. */
export function readJobId(value: unknown): Read<number> {
  const jobId = isRecord(value) ? integerField(value, 'jobId') : undefined
  if (jobId === undefined) return { ok: false, msg: 'invalid request body: jobId must be an integer' }
  return outOfInt32(jobId) ? { ok: false, msg: int32Msg('jobId') } : { ok: true, value: jobId }
}

/** `{logDateTim, logId, fromLineNum}` of log; the date is ignored (the admin loses its milliseconds). */
export function readLogParam(value: unknown): Read<{ logId: number; fromLineNum: number }> {
  const logId = isRecord(value) ? integerField(value, 'logId') : undefined
  if (logId === undefined || !isRecord(value))
    return { ok: false, msg: 'invalid request body: logId must be an integer' }
  const from = integerField(value, 'fromLineNum')
  if (outOfInt32(from)) return { ok: false, msg: int32Msg('fromLineNum') }
  return { ok: true, value: { logId, fromLineNum: from === undefined || from < 1 ? 1 : from } }
}

/** The LogResult of `/log`. */
export interface LogResult {
  readonly fromLineNum: number
  readonly toLineNum: number
  readonly logContent: string
  readonly isEnd: boolean
}

/** One item of the `api/callback` array (HandleCallbackParam, 2.3 - 3.4.2). */
export interface CallbackItem {
  readonly logId: number
  readonly logDateTim: number
  readonly handleCode: number
  readonly handleMsg: string
}

export function capHandleMsg(text: string): string {
  const msg = redactUrlsIn(text)
  return msg.length > MAX_HANDLE_MSG ? msg.slice(0, MAX_HANDLE_MSG) : msg
}
