import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { type PlanLineFields, planAccessLine, writesFieldsAsGiven } from '../../src/http/plan-access-line.js'
import { createLogger } from '../../src/logger.js'

const BINDINGS = {
  date: '2026-11-20',
  regime: 'neutral',
  generated_at: '2026-11-20T15:30:00.000Z',
  plan_version: '3',
  top: 20,
  obs_top: 10,
  theme_cap: 5,
  plan_source: 'snapshot',
}

const FIELDS: PlanLineFields[] = [
  { reqId: 'req-1', client: '127.0.0.1', cache: 'hit', format: 'json', status: 200, elapsed_s: 0.000013 },
  { reqId: 'req-zz', client: undefined, cache: 'miss', format: 'xml', status: 200, elapsed_s: 1.5 },
  { reqId: 'req-2', client: '::1', cache: 'hit', format: 'a"b\\c\n\t', status: 200, elapsed_s: Number.NaN },
  { reqId: 'req-3', client: '10.0.0.1', cache: 'hit', format: '计划</script>', status: 200, elapsed_s: 2e-7 },
]

function capture() {
  const lines: string[] = []
  return { lines, stream: { write: (text: string) => void lines.push(text) } }
}

/** The same line written by pino's own `info` and by `planAccessLine`, with the time made equal. */
function bothWays(options: pino.LoggerOptions | 'service', fields: PlanLineFields) {
  const viaPino = capture()
  const direct = capture()
  const make = (stream: pino.DestinationStream) =>
    options === 'service' ? createLogger({ logLevel: 'info' }, stream) : pino(options, stream)
  make(viaPino.stream).child(BINDINGS).info(fields, 'plan served')
  planAccessLine(make(direct.stream), BINDINGS)(fields)
  const sameTime = (lines: string[]) => lines.map((l) => l.replace(/"time":\d+/, '"time":0'))
  return { viaPino: sameTime(viaPino.lines), direct: sameTime(direct.lines) }
}

describe('the plan access line', () => {
  it("is written directly for the service's logger, byte for byte what pino's info writes", () => {
    expect(writesFieldsAsGiven(createLogger({ logLevel: 'info' }, capture().stream).child(BINDINGS))).toBe(true)
    for (const fields of FIELDS) {
      const { viaPino, direct } = bothWays('service', fields)
      expect(direct).toEqual(viaPino)
      expect(direct).toHaveLength(1)
      const parsed = JSON.parse(direct[0]!)
      expect(parsed).toMatchObject({ ...BINDINGS, reqId: fields.reqId, format: fields.format, msg: 'plan served' })
      expect(parsed.client).toBe(fields.client)
    }
  })

  it('carries each request its own fields when one writer serves many requests in a row', () => {
    const viaPino = capture()
    const direct = capture()
    const child = createLogger({ logLevel: 'info' }, viaPino.stream).child(BINDINGS)
    const line = planAccessLine(createLogger({ logLevel: 'info' }, direct.stream), BINDINGS)
    const sequence = [...FIELDS, ...FIELDS.slice().reverse(), FIELDS[0]!, FIELDS[0]!, FIELDS[1]!]
    for (const fields of sequence) {
      child.info(fields, 'plan served')
      line(fields)
    }
    const sameTime = (lines: string[]) => lines.map((l) => l.replace(/"time":\d+/, '"time":0'))
    expect(sameTime(direct.lines)).toEqual(sameTime(viaPino.lines))
    expect(direct.lines.map((l) => JSON.parse(l).client)).toEqual(sequence.map((f) => f.client))
  })

  it('is left to pino where the logger changes what the line holds', () => {
    const changers: Record<string, pino.LoggerOptions> = {
      redaction: { redact: ['client'] },
      serializer: { serializers: { format: (v: string) => v.toUpperCase() } },
      mixin: { mixin: () => ({ extra: 1 }) },
      'log formatter': { formatters: { log: (o: Record<string, unknown>) => ({ ...o, wrapped: true }) } },
      'message prefix': { msgPrefix: '[plan] ' },
      'nested key': { nestedKey: 'payload' },
      'message key': { messageKey: 'message' },
    }
    for (const [name, options] of Object.entries(changers)) {
      expect(writesFieldsAsGiven(pino(options, capture().stream).child(BINDINGS)), name).toBe(false)
      const { viaPino, direct } = bothWays(options, FIELDS[0]!)
      expect(direct, name).toEqual(viaPino)
    }
  })

  it('writes nothing when info is off, and follows a level changed later', () => {
    const out = capture()
    const log = createLogger({ logLevel: 'warn' }, out.stream)
    const line = planAccessLine(log, BINDINGS)
    line(FIELDS[0]!)
    expect(out.lines).toEqual([])
    log.level = 'info'
    line(FIELDS[0]!)
    expect(out.lines).toHaveLength(1)
  })
})
