import type { Server } from 'node:http'
import type { Socket } from 'node:net'

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
  /** Open connections at most; at the cap, a new one replaces the oldest that has sent nothing, or is refused. */
  readonly maxConnections: number
  /** Open connections from one client address at most; one more is refused. */
  readonly maxConnectionsPerClient: number
}

export interface Refusal {
  readonly client: string
  readonly reason: 'per-client' | 'overall'
}

const REFUSED_LINGER_MS = 1000
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

/**
 * Applies `limits` to `server`, before node's HTTP parser sees a connection: a connection over a cap gets a 503
 * `{detail}` written straight to its socket and is closed, so that it never reaches routing; one that sends nothing
 * is closed after the first-byte timeout (node's own deadlines start only with a request's first byte). At the overall
 * cap, the oldest connection that has not sent a byte yet makes room (a client that sends its request is served);
 * only when every open connection is in use is the new one refused. `onRefused` is told each refusal.
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

  const open = new Set<Socket>()
  const perClient = new Map<string, number>()

  const refuse = (socket: Socket, refusal: Refusal, detail: string): void => {
    onRefused(refusal)
    socket.on('error', () => undefined)
    socket.resume() // read and drop what the client sends, so that its close is seen
    socket.end(refusalBytes(detail))
    setTimeout(() => socket.destroy(), REFUSED_LINGER_MS).unref()
  }

  const oldestUnused = (): Socket | undefined => {
    for (const socket of open) if (socket.bytesRead === 0) return socket
    return undefined
  }

  server.on('connection', (socket: Socket) => {
    const client = socket.remoteAddress ?? 'unknown'
    const fromClient = perClient.get(client) ?? 0
    if (fromClient >= limits.maxConnectionsPerClient) {
      refuse(
        socket,
        { client, reason: 'per-client' },
        `this client address already has ${fromClient} open connections, the most one client may hold ` +
          '(HTTP_MAX_CONNECTIONS_PER_CLIENT); reuse or close one, then try again',
      )
      return
    }
    if (open.size >= limits.maxConnections) {
      const unused = oldestUnused()
      if (!unused) {
        refuse(
          socket,
          { client, reason: 'overall' },
          `the service has ${open.size} open connections, its limit (HTTP_MAX_CONNECTIONS), all in use; ` +
            'try again in a few seconds',
        )
        return
      }
      unused.destroy()
      open.delete(unused) // its close event follows; the count must drop now
    }
    open.add(socket)
    perClient.set(client, fromClient + 1)
    let counted = true
    const firstByte = setTimeout(() => {
      if (socket.bytesRead === 0) socket.destroy()
    }, limits.firstByteTimeoutMs).unref()
    socket.once('close', () => {
      clearTimeout(firstByte)
      open.delete(socket)
      if (!counted) return
      counted = false
      const left = (perClient.get(client) ?? 1) - 1
      if (left === 0) perClient.delete(client)
      else perClient.set(client, left)
    })
    startHttp.call(server, socket)
  })
  return { open: () => open.size }
}
