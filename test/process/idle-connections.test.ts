import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDemoDatabase, type DemoMarket } from '../support/demo-market.js'
import { rawRequest } from '../support/raw-http.js'
import { type ServerProcess, startServerProcess } from '../support/server-process.js'
import type { TestDatabase } from '../support/test-db.js'
import { waitFor } from '../support/wait.js'

const DESCRIPTOR_LIMIT = 256
const FIRST_BYTE_TIMEOUT_MS = 3000
const PER_CLIENT = 40

interface IdleSocket {
  readonly from: string
  received: string
  closedAt: number | undefined
}

/** A connection from `from` (a loopback address) that sends nothing; it records what it receives and when it closes. */
function openIdle(port: number, from: string): Promise<IdleSocket> {
  return new Promise((resolve, reject) => {
    const idle: IdleSocket = { from, received: '', closedAt: undefined }
    const socket = net.connect({ port, host: '127.0.0.1', localAddress: from })
    socket.on('data', (c) => {
      idle.received += c.toString()
    })
    socket.on('error', () => undefined) // a closed connection is what is measured
    socket.on('close', () => {
      idle.closedAt = Date.now()
    })
    socket.once('connect', () => resolve(idle))
    socket.once('error', reject)
  })
}

describe('idle connections against a server process with 256 descriptors', () => {
  let t: TestDatabase
  let demo: DemoMarket
  let server: ServerProcess

  beforeAll(async () => {
    ;[t, demo] = await createDemoDatabase()
    server = await startServerProcess(
      {
        DATABASE_URL: t.url,
        PLAN_DATA_DIR: demo.planDataDir,
        HTTP_FIRST_BYTE_TIMEOUT_MS: String(FIRST_BYTE_TIMEOUT_MS),
        HTTP_MAX_CONNECTIONS_PER_CLIENT: String(PER_CLIENT),
        // HTTP_MAX_CONNECTIONS unset: derived from the descriptor limit
      },
      60_000,
      { descriptorLimit: DESCRIPTOR_LIMIT },
    )
  })
  afterAll(async () => {
    server?.child.kill('SIGKILL')
    await demo?.cleanup()
    await t?.drop()
  })

  it('answers GET /plan within a second, from the address holding 100 of them, while 300 sockets sit idle, and closes them all', async () => {
    const port = Number(new URL(server.url).port)
    const warm = await fetch(`${server.url}/plan`)
    expect(warm.status).toBe(200)

    // 100 from one address (over its cap of 40), 200 from ten others (20 each): over the overall cap too
    const sources = [
      ...Array.from({ length: 100 }, () => '127.0.0.2'),
      ...Array.from({ length: 200 }, (_, i) => `127.0.0.${3 + (i % 10)}`),
    ]
    const openedAt = Date.now()
    const idle: IdleSocket[] = []
    for (const from of sources) idle.push(await openIdle(port, from))

    // on a fresh connection, as the PMS's morning call would come, from the address that holds 100 of them
    const started = Date.now()
    const plan = await rawRequest(
      port,
      'GET /plan HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
      '127.0.0.2',
    )
    const seconds = (Date.now() - started) / 1000
    expect(plan.status).toBe(200)
    expect((JSON.parse(plan.body) as { date?: string }).date).toBe(demo.planned.at(-1))
    expect(seconds).toBeLessThan(1)

    // every idle socket is closed: replaced at a cap by a newer one, or at the first-byte timeout
    await waitFor(
      () => idle.every((s) => s.closedAt !== undefined),
      FIRST_BYTE_TIMEOUT_MS + 5000,
      () => {
        const open = idle.filter((s) => s.closedAt === undefined).length
        return `all idle sockets closed (${open} still open ${Date.now() - openedAt} ms after the first opened)`
      },
    )
    const lastClosed = Math.max(...idle.map((s) => s.closedAt!))
    expect(lastClosed - openedAt).toBeLessThan(FIRST_BYTE_TIMEOUT_MS + 3000)

    // none was refused: at a cap the oldest silent one made room, closed without a word
    expect(idle.filter((s) => s.received !== '')).toEqual([])

    // the server is still well inside its descriptors: a fresh request after the storm is answered at once
    const after = await rawRequest(port, 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n')
    expect(after.status).toBe(200)
    expect(server.output()).not.toMatch(/connections refused/)
    expect(server.output()).not.toMatch(/EMFILE/)
  }, 60_000)
})
