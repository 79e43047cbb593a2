import http from 'node:http'
import net, { type AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/config.js'
import { type ConnectionLimits, limitConnections, type Refusal } from '../../src/http/connection-limits.js'
import { defaultMaxConnections, descriptorLimit } from '../../src/http/descriptor-limit.js'
import { waitFor } from '../support/wait.js'

const LIMITS: ConnectionLimits = {
  firstByteTimeoutMs: 60_000,
  keepAliveTimeoutMs: 5_000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  maxConnections: 2,
  maxConnectionsPerClient: 10,
}

interface Client {
  readonly socket: net.Socket
  received: string
  closed: boolean
}

function connect(port: number): Promise<Client> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1')
    const client: Client = { socket, received: '', closed: false }
    socket.on('data', (c) => {
      client.received += c.toString()
    })
    socket.on('error', () => undefined)
    socket.on('close', () => {
      client.closed = true
    })
    socket.once('connect', () => resolve(client))
  })
}

describe('connection caps', () => {
  let server: http.Server | undefined
  const held: http.ServerResponse[] = []
  afterEach(async () => {
    for (const res of held.splice(0)) res.end()
    server?.closeAllConnections()
    await new Promise((r) => server?.close(r))
  })

  /** A server whose requests stay unanswered (in use) until the test ends. */
  async function start(limits: ConnectionLimits, refusals: Refusal[]): Promise<number> {
    server = http.createServer((_req, res) => held.push(res))
    limitConnections(server, limits, (r) => refusals.push(r))
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r))
    return (server.address() as AddressInfo).port
  }

  const sendRequest = async (client: Client): Promise<void> => {
    const before = held.length
    client.socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n')
    await waitFor(() => held.length > before, 5_000, 'the request to reach the handler')
  }

  it('at the overall cap, with every connection in use, refuses a new one with 503 {detail}', async () => {
    const refusals: Refusal[] = []
    const port = await start(LIMITS, refusals)
    for (const client of [await connect(port), await connect(port)]) await sendRequest(client)
    const third = await connect(port)
    await waitFor(() => third.closed, 5_000, 'the refused connection to close')
    const [head, body] = third.received.split('\r\n\r\n') as [string, string]
    expect(head).toMatch(/^HTTP\/1\.1 503 Service Unavailable/)
    expect(head).toMatch(/connection: close/)
    expect(JSON.parse(body).detail).toMatch(/HTTP_MAX_CONNECTIONS\b.*try again/)
    expect(refusals).toEqual([{ client: '127.0.0.1', reason: 'overall' }])
  })

  it('at the overall cap, closes the oldest connection that sent nothing to make room for a new one', async () => {
    const refusals: Refusal[] = []
    const port = await start(LIMITS, refusals)
    const unused = await connect(port)
    const busy = await connect(port)
    await sendRequest(busy)
    const third = await connect(port)
    await waitFor(() => unused.closed, 5_000, 'the unused connection to be closed')
    await sendRequest(third)
    expect(busy.closed).toBe(false)
    expect(refusals).toEqual([])
  })

  it('refuses one connection over the per-client cap and counts a closed one out', async () => {
    const refusals: Refusal[] = []
    const port = await start({ ...LIMITS, maxConnections: 100, maxConnectionsPerClient: 1 }, refusals)
    const first = await connect(port)
    const second = await connect(port)
    await waitFor(() => second.closed, 5_000, 'the second connection to be refused')
    expect(JSON.parse(second.received.split('\r\n\r\n')[1]!).detail).toMatch(/HTTP_MAX_CONNECTIONS_PER_CLIENT/)
    first.socket.destroy()
    await waitFor(() => first.closed)
    await new Promise((r) => setImmediate(r))
    const third = await connect(port)
    await sendRequest(third)
    expect(refusals).toEqual([{ client: '127.0.0.1', reason: 'per-client' }])
  })
})

describe('connection settings', () => {
  it('defaults close a silent socket within a minute and keep the request deadline above the headers one', () => {
    const { http: limits } = loadConfig({})
    expect(limits.firstByteTimeoutMs).toBeLessThanOrEqual(60_000)
    expect(limits.keepAliveTimeoutMs).toBeLessThanOrEqual(60_000)
    expect(limits.requestTimeoutMs).toBeGreaterThanOrEqual(limits.headersTimeoutMs)
    expect(limits.maxConnections).toBeUndefined()
    expect(() => loadConfig({ HTTP_FIRST_BYTE_TIMEOUT_MS: '120000' })).toThrow(ConfigError)
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '20000', HTTP_REQUEST_TIMEOUT_MS: '10000' })).toThrow(
      /HTTP_REQUEST_TIMEOUT_MS \(10000\) must not be below HTTP_HEADERS_TIMEOUT_MS \(20000\)/,
    )
  })

  it('derives the overall cap from the descriptor limit, keeping a reserve', () => {
    const limits =
      'Limit  Soft Limit  Hard Limit  Units\nMax open files            256                  4096                 files\n'
    expect(descriptorLimit(() => limits)).toBe(256)
    expect(descriptorLimit(() => 'Max open files  unlimited  unlimited  files')).toBeUndefined()
    expect(
      descriptorLimit(() => {
        throw new Error('ENOENT')
      }),
    ).toBeUndefined()
    expect(defaultMaxConnections(256)).toBe(192)
    expect(defaultMaxConnections(65_536)).toBe(1000)
    expect(defaultMaxConnections(undefined)).toBe(1000)
  })
})
