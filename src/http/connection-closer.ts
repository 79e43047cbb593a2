import type { Server } from 'node:http'
import type { Socket } from 'node:net'

const SWEEP_MS = 25

/**
 * Lets a closing server finish without waiting on connections that carry no request. Node's `server.close()` ends
 * keep-alive connections idle at that moment, and waits for every other: a socket a browser opened ahead of need and
 * never used (Chromium preconnects) and a keep-alive connection whose in-flight response ends after the close both
 * hold it open until the client drops them or their deadlines pass (HTTP_FIRST_BYTE_TIMEOUT_MS,
 * HTTP_KEEP_ALIVE_TIMEOUT_MS). `closeWhenIdle` ends the sockets that never sent a byte and, until the server has
 * closed, every connection as soon as it is idle; a request in flight is answered first.
 */
export function closeConnectionsWhenIdle(server: Server): { closeWhenIdle(): void } {
  const sockets = new Set<Socket>()
  let closing = false
  const endUnused = (): void => {
    for (const socket of sockets) if (socket.bytesRead === 0) socket.destroy()
  }
  server.on('connection', (socket: Socket) => {
    if (closing) {
      socket.destroy() // accepted in the moment between the close and the listener stopping
      return
    }
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  })
  return {
    closeWhenIdle() {
      if (closing) return
      closing = true
      if (!server.listening) return
      endUnused()
      server.closeIdleConnections()
      const sweep = setInterval(() => {
        endUnused()
        server.closeIdleConnections()
      }, SWEEP_MS).unref()
      server.once('close', () => clearInterval(sweep))
    },
  }
}
