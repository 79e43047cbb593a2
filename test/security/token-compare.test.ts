/**
 * The scheduler token check is constant-time by construction (no timing measurement here): every string
 * comparison goes through `crypto.timingSafeEqual` on two 32-byte SHA-256 digests, whatever the lengths, so
 * neither an early mismatch nor a length difference returns sooner; and the executor's routes decide only
 * through that check.
 */
import type * as Crypto from 'node:crypto'
import fc from 'fast-check'
import Fastify from 'fastify'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createXxlJobPlugin, type ExecutorOps } from '../../src/scheduler/plugin.js'
import { MSG } from '../../src/scheduler/protocol.js'
import { tokenMatches } from '../../src/scheduler/token.js'
import { anyText } from '../support/any-text.js'

const spies = vi.hoisted(() => ({ timingSafeEqual: undefined as unknown as ReturnType<typeof vi.fn> }))

vi.mock('node:crypto', async (importOriginal) => {
  const original = await importOriginal<typeof Crypto>()
  spies.timingSafeEqual = vi.fn((a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) =>
    original.timingSafeEqual(a, b),
  )
  return {
    ...original,
    default: { ...original, timingSafeEqual: spies.timingSafeEqual },
    timingSafeEqual: spies.timingSafeEqual,
  }
})

vi.mock('../../src/scheduler/token.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/scheduler/token.js')>()
  return { tokenMatches: vi.fn(original.tokenMatches) }
})

const TOKEN = 'sched-token-7c1e5a90d4'

afterEach(() => {
  vi.clearAllMocks()
})

/** Every call since the last clear: exactly one digest comparison of two equal-length 32-byte buffers. */
function expectOneDigestComparison(): void {
  expect(spies.timingSafeEqual).toHaveBeenCalledTimes(1)
  const [a, b] = spies.timingSafeEqual.mock.calls[0] as [Buffer, Buffer]
  expect(a.length).toBe(32)
  expect(b.length).toBe(32)
}

describe('tokenMatches', () => {
  it('is true exactly for the same string, and always compares two 32-byte digests in constant time', () => {
    const token = fc.oneof(anyText({ minLength: 1, maxLength: 80 }), fc.constantFrom(TOKEN))
    const presented = fc.oneof(
      anyText({ maxLength: 200 }),
      fc.constantFrom('', TOKEN, `${TOKEN}x`, TOKEN.slice(0, -1), TOKEN.toUpperCase(), ` ${TOKEN}`, `${TOKEN}\u0000`),
    )
    fc.assert(
      fc.property(presented, token, (p, t) => {
        vi.clearAllMocks()
        expect(tokenMatches(p, t)).toBe(p === t)
        expectOneDigestComparison()
      }),
      { numRuns: 500 },
    )
  })

  it('compares a prefix, a longer string and a one-character difference the same way as the token itself', () => {
    for (const p of [TOKEN, TOKEN.slice(0, 1), `${TOKEN}${'x'.repeat(10_000)}`, `${TOKEN.slice(0, -1)}0`, 'x']) {
      vi.clearAllMocks()
      expect(tokenMatches(p, TOKEN)).toBe(p === TOKEN)
      expectOneDigestComparison()
    }
  })

  it('refuses anything but a single string header, and everything against an empty configured token', () => {
    for (const p of [
      undefined,
      null,
      0,
      1,
      true,
      [TOKEN],
      [TOKEN, TOKEN],
      { toString: () => TOKEN },
      Buffer.from(TOKEN),
    ]) {
      expect(tokenMatches(p, TOKEN), String(p)).toBe(false)
    }
    expect(tokenMatches('', '')).toBe(false)
    expect(tokenMatches(TOKEN, '')).toBe(false)
  })
})

describe("the executor's routes", () => {
  const ops: ExecutorOps = {
    beat: async () => ({ code: 200, msg: null }),
    idleBeat: async () => ({ code: 200, msg: null }),
    run: async () => ({ code: 200, msg: null }),
    kill: async () => ({ code: 200, msg: null }),
    log: async () => ({ code: 200, msg: null }),
  }

  it('decide every request through tokenMatches, before anything else', async () => {
    const app = Fastify()
    await app.register(createXxlJobPlugin(ops, TOKEN), { prefix: '/api/v1/xxljob' })
    const cases: Array<[string, Record<string, string>, number]> = [
      ['beat', { 'XXL-JOB-ACCESS-TOKEN': TOKEN }, 200],
      ['beat', { 'XXL-JOB-ACCESS-TOKEN': `${TOKEN}x` }, 500],
      ['beat', {}, 500],
      ['nope', { 'XXL-JOB-ACCESS-TOKEN': 'wrong' }, 500],
      ['run', { 'XXL-JOB-ACCESS-TOKEN': TOKEN.slice(0, -1) }, 500],
    ]
    for (const [op, headers, code] of cases) {
      vi.clearAllMocks()
      const res = await app.inject({ method: 'POST', url: `/api/v1/xxljob/${op}`, headers, payload: '{}' })
      expect(res.statusCode).toBe(200)
      expect(res.json().code).toBe(code)
      if (code === 500) expect(res.json().msg).toBe(MSG.tokenWrong)
      expect(tokenMatches).toHaveBeenCalledTimes(1)
      expect(vi.mocked(tokenMatches).mock.calls[0]![1]).toBe(TOKEN)
      if ('XXL-JOB-ACCESS-TOKEN' in headers) expectOneDigestComparison()
    }
    await app.close()
  })
})
