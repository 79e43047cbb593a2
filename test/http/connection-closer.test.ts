import net from 'node:net'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { buildTestApp, listenLocal, type TestApp } from '../support/app.js'
import { createTestDatabase, type TestDatabase } from '../support/test-db.js'
import { within } from '../support/wait.js'

/** A client socket to the app, what it has received, and a promise of its close (by the server: the client never ends it). */
async function connect(port: number) {
  const socket = net.connect(port, '127.0.0.1')
  let received = ''
  socket.on('data', (c: Buffer) => {
    received += c.toString()
  })
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()))
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve)
    socket.once('error', reject)
  })
  return { socket, closed, received: () => received }
}

describe('closing the app does not wait on connections that carry no request', () => {
  let t: TestDatabase
  let built: TestApp
  let port: number
  beforeEach(async () => {
    t = await createTestDatabase()
    built = await buildTestApp(t)
    port = await listenLocal(built.app)
  })
  afterEach(async () => {
    if (built.app.server.listening) {
      // a test that failed left it open: do not wait on its connections here too
      built.app.server.closeAllConnections()
      await built.app.close()
    }
    await built.services.close()
    await t.drop()
  })

  it('ends a socket that was opened and never used (a browser preconnect) and closes at once', async () => {
    const accepted = new Promise((resolve) => built.app.server.once('connection', resolve))
    const unused = await connect(port)
    await within(accepted, 10_000, 'the server accepting the socket')
    await within(built.app.close(), 10_000, 'app.close() with an unused socket open')
    await within(unused.closed, 1_000, 'the unused socket')
    expect(unused.received()).toBe('')
  })

  it('answers a request in flight at the close in full, then ends its keep-alive connection', async () => {
    const received = new Promise((resolve) => built.app.server.once('request', resolve))
    const client = await connect(port)
    client.socket.write(
      'POST /plan/refresh HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\nContent-Type: application/json\r\n' +
        'Content-Length: 10\r\n\r\n{"a":',
    )
    // in flight: its headers parsed, half its body read
    await within(received, 10_000, 'the server parsing the request')
    const closing = built.app.close()
    client.socket.write('1234}')
    await within(closing, 10_000, 'app.close() with a keep-alive request in flight')
    await within(client.closed, 1_000, 'the keep-alive socket')
    const [head = '', body = ''] = client.received().split('\r\n\r\n')
    expect(head).toMatch(/^HTTP\/1\.1 404 /)
    expect(Number(/content-length: (\d+)/i.exec(head)?.[1])).toBe(Buffer.byteLength(body))
    expect(JSON.parse(body)).toHaveProperty('detail')
  })
})
