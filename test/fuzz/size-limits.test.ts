/**
 * Request line, header and body size limits over a real socket: a 100 kB URL, a 100 kB header, 100 kB of small
 * headers and an oversized body are each answered with a 4xx (never a hang, never a 5xx), and the server goes on
 * serving; the largest lookup the service documents (MAX_CODES codes) still fits in the request line.
 */

import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_CODES } from '../../src/domain/code-list.js'
import { buildTestApp, listenLocal, type TestApp } from '../support/app.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'

interface RawResponse {
  readonly status: number
  readonly head: string
  readonly body: string
}

/** Writes `request` on a fresh connection and reads until the server closes it or the response is complete. */
function rawRequest(port: number, request: string | Buffer, timeoutMs = 10_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1' })
    const chunks: Buffer[] = []
    let settled = false
    const finish = (err?: Error): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      const text = Buffer.concat(chunks).toString('utf8')
      const match = /^HTTP\/1\.1 (\d{3})/.exec(text)
      if (!match) {
        reject(err ?? new Error(`no HTTP response: ${JSON.stringify(text.slice(0, 200))}`))
        return
      }
      const split = text.indexOf('\r\n\r\n')
      resolve({ status: Number(match[1]), head: text.slice(0, split), body: split < 0 ? '' : text.slice(split + 4) })
    }
    const timer = setTimeout(() => finish(new Error(`no response within ${timeoutMs} ms (a hang)`)), timeoutMs)
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk)
      const text = Buffer.concat(chunks).toString('utf8')
      const split = text.indexOf('\r\n\r\n')
      const length = /\r\ncontent-length: (\d+)/i.exec(text.slice(0, split))
      if (split >= 0 && length && Buffer.byteLength(text.slice(split + 4)) >= Number(length[1])) finish()
    })
    socket.on('end', () => finish())
    socket.on('close', () => finish())
    // the server may answer and close before it has read everything we send
    socket.on('error', (err) => finish(err))
    socket.write(request)
  })
}

const HUNDRED_KB = 100 * 1024

describe('request size limits over a real socket', () => {
  let t: TestDatabase
  let built: TestApp
  let port: number

  beforeAll(async () => {
    t = await createTestDatabase()
    built = await buildTestApp(t)
    port = await listenLocal(built.app)
  })
  afterAll(async () => {
    await built?.close()
    await t?.drop()
  })

  const expectServing = async (): Promise<void> => {
    const res = await rawRequest(port, 'GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
    expect(res.status).toBe(200)
  }

  it('answers a 100 kB URL with 414/431/400', async () => {
    for (const path of ['/plan/verdict?codes=', '/plan?format=', `/${'a'.repeat(10)}`, '/api/v1/xxljob/']) {
      const url = `${path}${'6'.repeat(HUNDRED_KB)}`
      const res = await rawRequest(port, `GET ${url} HTTP/1.1\r\nHost: x\r\n\r\n`)
      expect([400, 414, 431], `${path}: ${res.head}`).toContain(res.status)
      expect(Object.keys(JSON.parse(res.body))).toEqual(['detail'])
    }
    await expectServing()
  })

  it('answers a 100 kB header, and 100 kB of small headers, with 431/400', async () => {
    const big = await rawRequest(port, `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(HUNDRED_KB)}\r\n\r\n`)
    expect([400, 431], big.head).toContain(big.status)
    const many = Array.from({ length: 10_000 }, (_, i) => `X-H${i}: ${'v'.repeat(4)}\r\n`).join('')
    const small = await rawRequest(port, `GET /health HTTP/1.1\r\nHost: x\r\n${many}\r\n`)
    expect([400, 431], small.head).toContain(small.status)
    const cookie = await rawRequest(
      port,
      `GET / HTTP/1.1\r\nHost: x\r\nCookie: ${'c=1; '.repeat(HUNDRED_KB / 5)}\r\n\r\n`,
    )
    expect([400, 431], cookie.head).toContain(cookie.status)
    for (const res of [big, small, cookie]) expect(Object.keys(JSON.parse(res.body))).toEqual(['detail'])
    await expectServing()
  })

  it('answers an oversized body with 413 {detail} and a lying content-length without hanging', async () => {
    const body = JSON.stringify({ pad: 'x'.repeat(2 * 1024 * 1024) })
    const res = await rawRequest(
      port,
      `POST /plan/refresh HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    )
    expect(res.status).toBe(413)
    expect(Object.keys(JSON.parse(res.body))).toEqual(['detail'])
    const declared = await rawRequest(
      port,
      `POST /plan/refresh HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${50 * 1024 * 1024}\r\nConnection: close\r\n\r\n{}`,
    )
    expect(declared.status).toBe(413)
    const bad = await rawRequest(port, 'GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n')
    expect(bad.status).toBe(400)
    expect(Object.keys(JSON.parse(bad.body))).toEqual(['detail'])
    await expectServing()
  })

  it('still serves the largest documented lookup (MAX_CODES codes) through the request line', async () => {
    const codes = Array.from({ length: MAX_CODES }, (_, i) => `${600000 + (i % 1000)}.SH`).join('%2C')
    const res = await rawRequest(
      port,
      `GET /plan/verdict?codes=${codes} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    )
    // the empty test database has no tier date: the list was read and checked, then 404
    expect(res.status, res.head).toBe(404)
    expect(JSON.parse(res.body).detail).toMatch(/tier table is empty/)
    const over = `${codes}%2C600000.SH`
    const refused = await rawRequest(
      port,
      `GET /plan/verdict?codes=${over} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    )
    expect(refused.status).toBe(422)
  })
})
