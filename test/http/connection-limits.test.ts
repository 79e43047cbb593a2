import http from 'node:http'
import net, { type AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/config.js'
import { clientKey } from '../../src/http/client-key.js'
import {
  type ConnectionLimits,
  limitConnections,
  OVER_CAP_BUDGET,
  OVER_CLIENT_CAP_BUDGET,
  type Refusal,
} from '../../src/http/connection-limits.js'
import { defaultMaxConnections, descriptorLimit, descriptorReserve } from '../../src/http/descriptor-limit.js'
import { waitFor } from '../support/wait.js'

const LIMITS: ConnectionLimits = {
  firstByteTimeoutMs: 60_000,
  keepAliveTimeoutMs: 5_000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  sendTimeoutMs: 30_000,
  maxConnections: 2,
  maxConnectionsPerClient: 10,
}

interface Client {
  readonly socket: net.Socket
  received: string
  closed: boolean
}

function connect(port: number, from = '127.0.0.1', host = '127.0.0.1'): Promise<Client> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host, localAddress: from })
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

const responses = (client: Client): number => client.received.split('HTTP/1.1 200').length - 1

/** An answer far larger than what the kernel's buffers of a loopback connection hold (a few MB). */
const BIG = Buffer.alloc(32 * 1024 * 1024, 0x61)

/** A client that asks for `/big` and never reads a byte of it. */
async function nonReader(port: number): Promise<Client> {
  const client = await connect(port)
  client.socket.removeAllListeners('data')
  client.socket.pause()
  client.socket.write('GET /big HTTP/1.1\r\nHost: x\r\n\r\n')
  return client
}

describe('connection caps', () => {
  let server: http.Server | undefined
  const held: http.ServerResponse[] = []
  /** Server-side sockets whose state a test reads in the tick they were accepted (refused ones included). */
  let accepted: Array<{ socket: net.Socket; destroyedAtOnce: boolean }> = []
  let bigAsked = 0
  let answerAsked = 0
  afterEach(async () => {
    bigAsked = 0
    answerAsked = 0
    for (const res of held.splice(0)) res.end()
    accepted = []
    server?.closeAllConnections()
    await new Promise((r) => server?.close(r))
  })

  /** `GET /answer` is answered at once (the connection then idles, kept alive); any other request stays in flight. */
  async function start(limits: ConnectionLimits, refusals: Refusal[], host = '127.0.0.1'): Promise<number> {
    server = http.createServer((req, res) => {
      if (req.url === '/answer') {
        answerAsked++
        res.end('ok')
      } else if (req.url === '/big') {
        bigAsked++
        res.end(BIG)
      } else held.push(res)
    })
    limitConnections(server, limits, (r) => refusals.push(r))
    server.on('connection', (socket: net.Socket) => accepted.push({ socket, destroyedAtOnce: socket.destroyed }))
    await new Promise<void>((r) => server!.listen(0, host, r))
    return (server.address() as AddressInfo).port
  }

  const sendRequest = async (client: Client): Promise<void> => {
    const before = held.length
    client.socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n')
    await waitFor(() => held.length > before, 5_000, 'the request to reach the handler')
  }

  /** One request answered on `client`, which then idles as a kept-alive connection. */
  const useOnce = async (client: Client): Promise<void> => {
    const before = responses(client)
    client.socket.write('GET /answer HTTP/1.1\r\nHost: x\r\n\r\n')
    await waitFor(() => responses(client) > before, 5_000, 'the answer')
    await new Promise((r) => setImmediate(r)) // the response's close, which puts the connection at rest
  }

  it('at the overall cap, with every connection in use, admits a small budget more, then refuses with 503 {detail} at once', async () => {
    const refusals: Refusal[] = []
    const port = await start({ ...LIMITS, maxConnectionsPerClient: 100 }, refusals)
    for (let i = 0; i < LIMITS.maxConnections + OVER_CAP_BUDGET; i++) await sendRequest(await connect(port))
    const refused = await connect(port)
    await waitFor(() => refused.closed, 5_000, 'the refused connection to close')
    const [head, body] = refused.received.split('\r\n\r\n') as [string, string]
    expect(head).toMatch(/^HTTP\/1\.1 503 Service Unavailable/)
    expect(head).toMatch(/connection: close/)
    expect(JSON.parse(body).detail).toMatch(/HTTP_MAX_CONNECTIONS\b.*try again/)
    expect(refusals).toEqual([{ client: '127.0.0.1', reason: 'overall' }])
    // destroyed in the tick it was accepted: its descriptor is not held while the client takes its time to close
    expect(accepted.map((a) => a.destroyedAtOnce)).toEqual([...accepted.slice(1).map(() => false), true])
  })

  it('at the overall cap, with every connection held by a client that never reads its answer, makes room by closing one', async () => {
    const refusals: Refusal[] = []
    const limits = { ...LIMITS, maxConnectionsPerClient: 100, sendTimeoutMs: 600_000 }
    const port = await start(limits, refusals)
    const holders = limits.maxConnections + OVER_CAP_BUDGET
    for (let i = 0; i < holders; i++) {
      await nonReader(port)
      await waitFor(() => bigAsked === i + 1, 5_000, 'the holder to have asked')
    }
    // until the first check finds the holders stalled a newcomer is refused (each holder carries a request); after it
    // the newcomer's request is answered, for a stalled holder counts as idle and is closed for it
    const served = await waitFor(
      async () => {
        const newcomer = await connect(port, '127.0.0.9')
        newcomer.socket.write('GET /answer HTTP/1.1\r\nHost: x\r\n\r\n')
        await waitFor(() => newcomer.closed || responses(newcomer) > 0, 5_000, 'an answer or a refusal')
        return responses(newcomer) > 0 && newcomer
      },
      8_000,
      'a newcomer served while non-readers hold every connection',
    )
    expect(served.closed).toBe(false)
    // a paused client does not notice its close; the server's side of a holder does
    expect(accepted.slice(0, holders).filter((a) => a.socket.destroyed).length).toBeGreaterThanOrEqual(1)
  })

  it('keeps a non-reader closable when it pipelines another request behind the answer it does not read', async () => {
    const limits = { ...LIMITS, maxConnections: 100, maxConnectionsPerClient: 1, sendTimeoutMs: 600_000 }
    const port = await start(limits, [])
    const holders: Client[] = []
    for (let i = 0; i < limits.maxConnectionsPerClient + OVER_CLIENT_CAP_BUDGET; i++) {
      holders.push(await nonReader(port))
      await waitFor(() => bigAsked === i + 1, 5_000, 'the holder to have asked')
    }
    // refused while the holders carry requests; served once a check finds them stalled, by closing one of them
    await waitFor(
      async () => {
        const probe = await connect(port)
        probe.socket.write('GET /answer HTTP/1.1\r\nHost: x\r\n\r\n')
        await waitFor(() => probe.closed || responses(probe) > 0, 5_000, 'an answer or a refusal')
        const served = responses(probe) > 0
        probe.socket.destroy()
        return served
      },
      8_000,
      'a probe served once the holders are found stalled',
    )
    const open = () => accepted.filter((a) => !a.socket.destroyed).length
    await waitFor(() => open() === holders.length - 1, 5_000, 'the probe and one holder to be gone')
    // each holder left pipelines a request: the stall is unchanged, so they stay closable
    const asked = answerAsked
    for (const holder of holders) holder.socket.write('GET /answer HTTP/1.1\r\nHost: x\r\n\r\n')
    await waitFor(() => answerAsked === asked + holders.length - 1, 5_000, 'the pipelined requests to arrive')
    await sendRequest(await connect(port))
    await sendRequest(await connect(port))
  })

  it('closes a connection whose client takes no byte of its answer for the send timeout; one that reads in bursts gets it all', async () => {
    const port = await start({ ...LIMITS, sendTimeoutMs: 400 }, [])
    await nonReader(port)
    await waitFor(() => accepted[0]?.socket.destroyed, 5_000, 'the non-reading connection to be closed')
    // one that reads in bursts, 20 ms every 150 ms (the checks come every 200 ms), is not
    const slow = await connect(port)
    let bytes = 0
    slow.socket.removeAllListeners('data')
    slow.socket.on('data', (chunk: Buffer) => {
      bytes += chunk.length
    })
    slow.socket.pause()
    const bursts = setInterval(() => {
      slow.socket.resume()
      setTimeout(() => slow.socket.pause(), 20)
    }, 150)
    try {
      slow.socket.write('GET /big HTTP/1.1\r\nHost: x\r\n\r\n')
      await waitFor(
        () => bytes > BIG.length || accepted[1]?.socket.destroyed,
        30_000,
        'the whole answer read in bursts',
      )
    } finally {
      clearInterval(bursts)
    }
    expect(accepted[1]!.socket.destroyed).toBe(false)
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

  it('at the overall cap, serves a newcomer from another address by closing the oldest idle keep-alive connection', async () => {
    const refusals: Refusal[] = []
    const port = await start(LIMITS, refusals)
    const older = await connect(port, '127.0.0.2')
    const newer = await connect(port, '127.0.0.3')
    await useOnce(older)
    await useOnce(newer)
    const pms = await connect(port, '127.0.0.4')
    await useOnce(pms)
    await waitFor(() => older.closed, 5_000, 'the oldest idle connection to be closed')
    expect(newer.closed).toBe(false)
    // a connection that sent a byte of a request and stalled is closed after the idle keep-alive ones
    const stall = async (from: string): Promise<Client> => {
      const client = await connect(port, from)
      client.socket.write('G')
      await waitFor(() => accepted.at(-1)!.socket.bytesRead > 0, 5_000, 'the byte to arrive')
      return client
    }
    const stalledFirst = await stall('127.0.0.5')
    await waitFor(() => newer.closed, 5_000, 'the older idle keep-alive connection to be closed')
    const stalledSecond = await stall('127.0.0.5')
    await waitFor(() => pms.closed, 5_000, 'the idle keep-alive connection to be closed before a stalled one')
    const another = await connect(port, '127.0.0.6')
    await useOnce(another)
    expect([stalledFirst.closed, stalledSecond.closed]).toEqual([true, false])
    expect(refusals).toEqual([])
  })

  it('at the per-client cap, serves a newcomer from that address: never-spoken closed first, then idle keep-alive, then a stalled head', async () => {
    const refusals: Refusal[] = []
    const port = await start({ ...LIMITS, maxConnections: 100, maxConnectionsPerClient: 3 }, refusals)
    const keptAlive = await connect(port)
    await useOnce(keptAlive)
    const stalled = await connect(port)
    stalled.socket.write('GET / HT')
    const silent = await connect(port)
    await waitFor(() => accepted.length === 3 && accepted[1]!.socket.bytesRead > 0, 5_000, 'the stalled head to arrive')

    const first = await connect(port)
    await waitFor(() => silent.closed, 5_000, 'the never-spoken connection (the newest) to be closed first')
    await useOnce(first)
    expect([keptAlive.closed, stalled.closed]).toEqual([false, false])
    const second = await connect(port)
    await waitFor(() => keptAlive.closed, 5_000, 'the idle keep-alive connection to be closed next')
    await useOnce(second)
    expect(stalled.closed).toBe(false)
    await sendRequest(first) // in use: not to be closed
    await sendRequest(second)
    const third = await connect(port)
    await waitFor(() => stalled.closed, 5_000, 'the stalled head to be closed last')
    await useOnce(third)
    expect(refusals).toEqual([])
  })

  it('over the per-client cap with every connection in use, admits a small budget, then refuses at once; a closed one is counted out', async () => {
    const refusals: Refusal[] = []
    const port = await start({ ...LIMITS, maxConnections: 100, maxConnectionsPerClient: 1 }, refusals)
    const clients: Client[] = []
    for (let i = 0; i < 1 + OVER_CLIENT_CAP_BUDGET; i++) {
      clients.push(await connect(port))
      await sendRequest(clients.at(-1)!)
    }
    const refused = await connect(port)
    await waitFor(() => refused.closed, 5_000, 'the connection over the budget to be refused')
    expect(JSON.parse(refused.received.split('\r\n\r\n')[1]!).detail).toMatch(/HTTP_MAX_CONNECTIONS_PER_CLIENT/)
    expect(accepted.at(-1)!.destroyedAtOnce).toBe(true)
    // another address is not held by this one's cap
    await sendRequest(await connect(port, '127.0.0.2'))
    clients[0]!.socket.destroy()
    await waitFor(() => clients[0]!.closed)
    await new Promise((r) => setImmediate(r))
    await sendRequest(await connect(port))
    expect(refusals).toEqual([{ client: '127.0.0.1', reason: 'per-client' }])
  })

  it('counts IPv6 clients by their /64', async () => {
    const refusals: Refusal[] = []
    const port = await start({ ...LIMITS, maxConnections: 100, maxConnectionsPerClient: 1 }, refusals, '::1')
    for (let i = 0; i < 1 + OVER_CLIENT_CAP_BUDGET; i++) await sendRequest(await connect(port, '::1', '::1'))
    const refused = await connect(port, '::1', '::1')
    await waitFor(() => refused.closed, 5_000, 'the connection over the budget to be refused')
    expect(refusals).toEqual([{ client: '0:0:0:0::/64', reason: 'per-client' }])
  })
})

describe('clientKey', () => {
  it('keys IPv4 by address, IPv6 by its /64 (in any spelling), an IPv4-mapped address as IPv4', () => {
    expect(clientKey('10.0.0.7')).toBe('10.0.0.7')
    expect(clientKey('::ffff:10.0.0.7')).toBe('10.0.0.7')
    const oneNetwork = [
      '2001:db8:0:12::1',
      '2001:DB8:0:12:ffff:1:2:3',
      '2001:0db8:0000:0012:abcd::9',
      '2001:db8:0:12::7%eth0',
    ]
    expect(new Set(oneNetwork.map(clientKey))).toEqual(new Set(['2001:db8:0:12::/64']))
    expect(clientKey('2001:db8:0:13::1')).toBe('2001:db8:0:13::/64')
    expect(clientKey('64:ff9b::192.0.2.1')).toBe('64:ff9b:0:0::/64')
    expect(clientKey(undefined)).toBe('unknown')
  })
})

describe('connection settings', () => {
  it('defaults close a silent socket within a minute and keep the request deadline above the headers one', () => {
    const { http: limits } = loadConfig({})
    expect(limits.firstByteTimeoutMs).toBeLessThanOrEqual(60_000)
    expect(limits.keepAliveTimeoutMs).toBeLessThanOrEqual(60_000)
    expect(limits.requestTimeoutMs).toBeGreaterThanOrEqual(limits.headersTimeoutMs)
    expect(limits.maxConnections).toBeUndefined()
    // a client that stops reading is let go well before the PMS's 60 s
    expect(limits.sendTimeoutMs).toBeLessThan(60_000)
    expect(loadConfig({ HTTP_SEND_TIMEOUT_MS: '5000' }).http.sendTimeoutMs).toBe(5000)
    expect(() => loadConfig({ HTTP_SEND_TIMEOUT_MS: '0' })).toThrow(/HTTP_SEND_TIMEOUT_MS/)
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
    const reserve = descriptorReserve({ children: 2 })
    expect(defaultMaxConnections(256, reserve)).toBe(256 - reserve)
    expect(defaultMaxConnections(65_536, reserve)).toBe(1000)
    expect(defaultMaxConnections(undefined, reserve)).toBe(1000)
    expect(defaultMaxConnections(64, reserve)).toBe(16)
  })

  it('reserves descriptors for the store pool, files, node itself, each chain child and the over-cap budget', () => {
    const base = descriptorReserve({ poolMax: 10, children: 0 })
    // the pool's connections, three a child, and the connections a cap may be exceeded by are all reserved
    expect(descriptorReserve({ poolMax: 30, children: 0 }) - base).toBe(20)
    expect(descriptorReserve({ poolMax: 10, children: 4 }) - base).toBe(12)
    expect(base).toBeGreaterThanOrEqual(10 + OVER_CAP_BUDGET + 32)
  })
})
