import type { Server } from 'node:http'
import type { Socket } from 'node:net'
import { clientKey } from './client-key.js'

/** The deadlines and caps of the service's HTTP connections (config `http`, README "Configuration"). */
export interface ConnectionLimits {
  /** A connection that has sent no byte this long after it opened is closed. */
  readonly firstByteTimeoutMs: number
  /** An idle keep-alive connection (between requests) is closed after this long. */
  readonly keepAliveTimeoutMs: number
  /** The whole request head must have arrived this long after its first byte. */
  readonly headersTimeoutMs: number
  /** The whole request, body included, must have arrived this long after its first byte. */
  readonly requestTimeoutMs: number
  /**
   * An answer the client takes no byte of for this long closes the connection; from the first check that finds it
   * stalled (a second, or half this if shorter) it counts as idle, so a cap closes it to make room.
   */
  readonly sendTimeoutMs: number
  /** Open connections at most; at the cap, a new one replaces the idlest open one (see `limitConnections`). */
  readonly maxConnections: number
  /** Open connections from one client (an IPv4 address, an IPv6 /64) at most; at the cap, as overall. */
  readonly maxConnectionsPerClient: number
}

export interface Refusal {
  /** The client as the per-client cap counts it (`clientKey`: an IPv4 address, an IPv6 /64). */
  readonly client: string
  readonly reason: 'per-client' | 'overall'
}

/**
 * Connections a cap may be exceeded by while every connection under it carries a request (none can be closed to make
 * room); one more is refused. Counted in the descriptor reserve (descriptor-limit.ts).
 */
export const OVER_CAP_BUDGET = 16
export const OVER_CLIENT_CAP_BUDGET = 4
// how often node checks the headers and request deadlines (its default, 30 s, would let them overrun by as much)
const DEADLINE_CHECK_MS = 1000

/** Options for `http.createServer` that make node check the headers and request deadlines often enough. */
export const deadlineCheckOptions = { connectionsCheckingInterval: DEADLINE_CHECK_MS } as const

function refusalBytes(detail: string): Buffer {
  const body = JSON.stringify({ detail })
  return Buffer.from(
    'HTTP/1.1 503 Service Unavailable\r\n' +
      'content-type: application/json; charset=utf-8\r\n' +
      'x-content-type-options: nosniff\r\n' +
      'cache-control: no-store\r\n' +
      'retry-after: 5\r\n' +
      'connection: close\r\n' +
      `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  )
}

/** An open connection as the caps see it. */
interface Connection {
  readonly socket: Socket
  readonly client: string
  /** Requests read whose response has not ended. */
  inFlight: number
  /** `socket.bytesRead` when its last response ended: more since then is the head of a next request. */
  readAtRest: number
  /** Its answer waits for a client that has taken no byte of it since the last check: it may be closed for room. */
  sendStalled: boolean
  /** How far its answer had gone at the last check, while a request is in flight; how long it has not moved since. */
  sent: SendingState | undefined
  stalledForMs: number
}

const SEND_CHECK_MS = 1000

/**
 * How far a socket's answer has gone: bytes given to it, bytes it still holds, and bytes its handle has yet to hand
 * to the kernel. The last is the only one that moves while the kernel takes a large write piece by piece (the stream
 * counts a write as waiting until all of it is taken), so it tells a reader from one that reads nothing; node has no
 * public name for it (`writeQueueSize` of the TCP handle, which `bufferSize` once read). The kernel takes more only
 * when much of its send buffer is free, so a very slow reader of a large answer looks stalled too.
 */
interface SendingState {
  readonly written: number
  readonly waiting: number
  readonly queued: number
}

function sendingState(socket: Socket): SendingState {
  const handle = (socket as unknown as { _handle?: { writeQueueSize?: number } })._handle
  return { written: socket.bytesWritten, waiting: socket.writableLength, queued: handle?.writeQueueSize ?? 0 }
}

/**
 * Applies `limits` to `server`, before node's HTTP parser sees a connection. At a cap (overall, or the new
 * connection's client's), a connection that brings a request is served before idle ones are kept, as nginx does with
 * its reusable connections: the oldest idle one under that cap is closed to make room, never-spoken first, then
 * idle keep-alive, then one whose request head stalled. Only when every connection under the cap carries a request
 * is the cap exceeded, by a small budget; beyond it the new connection gets a 503 `{detail}` and is destroyed at once
 * (its descriptor is free again in the same tick). A connection that sends nothing is closed after the first-byte
 * timeout (node's own deadlines start only with a request's first byte). `onRefused` is told each refusal.
 */
export function limitConnections(
  server: Server,
  limits: ConnectionLimits,
  onRefused: (refusal: Refusal) => void = () => undefined,
): { open(): number } {
  server.keepAliveTimeout = limits.keepAliveTimeoutMs
  server.headersTimeout = limits.headersTimeoutMs
  server.requestTimeout = limits.requestTimeoutMs
  const parsers = server.listeners('connection')
  if (parsers.length !== 1) throw new Error('limitConnections must be applied to a fresh http.Server')
  const startHttp = parsers[0] as (socket: Socket) => void
  server.removeAllListeners('connection')

  const open = new Map<Socket, Connection>()
  // connections with no request in flight, in the order they came to rest (opened, or their last response ended)
  const resting = new Set<Connection>()
  const perClient = new Map<string, number>()

  const forget = (connection: Connection): void => {
    if (!open.delete(connection.socket)) return
    resting.delete(connection)
    const left = (perClient.get(connection.client) ?? 1) - 1
    if (left === 0) perClient.delete(connection.client)
    else perClient.set(connection.client, left)
  }

  /** The connection to close for a newcomer: the oldest never-spoken, else idle keep-alive, else stalled head. */
  const idlest = (client?: string): Connection | undefined => {
    let keptAlive: Connection | undefined
    let stalled: Connection | undefined
    for (const connection of resting) {
      if (client !== undefined && connection.client !== client) continue
      if (connection.sendStalled) {
        stalled ??= connection
        continue
      }
      const read = connection.socket.bytesRead
      if (read === 0) return connection
      if (read === connection.readAtRest) keptAlive ??= connection
      else stalled ??= connection
    }
    return keptAlive ?? stalled
  }

  /** Makes room under a cap: closes its idlest connection; false when every one carries a request. */
  const makeRoom = (client?: string): boolean => {
    const idle = idlest(client)
    if (!idle) return false
    idle.socket.destroy()
    forget(idle) // its close event follows; the counts must drop now
    return true
  }

  const refuse = (socket: Socket, refusal: Refusal, detail: string): void => {
    onRefused(refusal)
    socket.on('error', () => undefined)
    // the 503 goes to the kernel in this write; destroying now frees the descriptor instead of lingering for the
    // client's close, so that a flood of refused connections cannot take the descriptors the store and files need
    socket.end(refusalBytes(detail))
    socket.destroy()
  }

  /**
   * A client that never reads its answer would hold its connection for ever (node's deadlines cover only receiving a
   * request): while an answer waits in the socket's buffer and the client takes none of it, the connection is idle
   * to the caps, and after `sendTimeoutMs` it is closed. One timer for the server: a request costs nothing more.
   */
  const checkEvery = Math.min(SEND_CHECK_MS, limits.sendTimeoutMs / 2)
  const checkSending = (): void => {
    for (const connection of open.values()) {
      if (connection.inFlight === 0) continue
      const now = sendingState(connection.socket)
      const before = connection.sent
      connection.sent = now
      const stalled =
        before !== undefined && now.waiting > 0 && now.written === before.written && now.queued === before.queued
      connection.stalledForMs = stalled ? connection.stalledForMs + checkEvery : 0
      if (stalled && connection.stalledForMs >= limits.sendTimeoutMs) connection.socket.destroy()
      else if (stalled !== connection.sendStalled) {
        connection.sendStalled = stalled
        if (stalled) resting.add(connection)
        else resting.delete(connection)
      }
    }
  }
  const sendingChecks = setInterval(checkSending, checkEvery).unref()
  server.once('close', () => clearInterval(sendingChecks))

  server.prependListener('request', (req, res) => {
    const connection = open.get(req.socket)
    if (!connection) return
    connection.inFlight++
    // a request pipelined behind an answer its client does not read leaves the connection as idle as it was
    if (!connection.sendStalled) resting.delete(connection)
    res.once('close', () => {
      connection.inFlight--
      connection.sent = undefined
      connection.stalledForMs = 0
      if (connection.sendStalled) {
        connection.sendStalled = false
        resting.delete(connection)
      }
      if (connection.inFlight > 0 || !open.has(connection.socket)) return
      connection.readAtRest = connection.socket.bytesRead
      resting.add(connection)
    })
  })

  server.on('connection', (socket: Socket) => {
    const client = clientKey(socket.remoteAddress)
    const fromClient = perClient.get(client) ?? 0
    if (
      fromClient >= limits.maxConnectionsPerClient &&
      !makeRoom(client) &&
      fromClient >= limits.maxConnectionsPerClient + OVER_CLIENT_CAP_BUDGET
    ) {
      refuse(
        socket,
        { client, reason: 'per-client' },
        `this client address already has ${fromClient} open connections, each carrying a request, over the most ` +
          'one client may hold (HTTP_MAX_CONNECTIONS_PER_CLIENT); try again when one has been answered',
      )
      return
    }
    if (open.size >= limits.maxConnections && !makeRoom() && open.size >= limits.maxConnections + OVER_CAP_BUDGET) {
      refuse(
        socket,
        { client, reason: 'overall' },
        `the service has ${open.size} open connections, over its limit (HTTP_MAX_CONNECTIONS), each carrying a ` +
          'request; try again in a few seconds',
      )
      return
    }
    const connection: Connection = {
      socket,
      client,
      inFlight: 0,
      readAtRest: 0,
      sendStalled: false,
      sent: undefined,
      stalledForMs: 0,
    }
    open.set(socket, connection)
    resting.add(connection)
    perClient.set(client, (perClient.get(client) ?? 0) + 1)
    const firstByte = setTimeout(() => {
      if (socket.bytesRead === 0) socket.destroy()
    }, limits.firstByteTimeoutMs).unref()
    socket.once('close', () => {
      clearTimeout(firstByte)
      forget(connection)
    })
    startHttp.call(server, socket)
  })
  return { open: () => open.size }
}
