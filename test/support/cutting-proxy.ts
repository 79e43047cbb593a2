import { createConnection, createServer, type Server, type Socket } from 'node:net'

/**
 * A TCP proxy in front of PostgreSQL that, once armed, cuts the connection right after it has passed on the
 * server's next CommandComplete message, before the ReadyForQuery that follows it: the moment a lost store
 * leaves a client between "the rows are all here" and "the server is ready again".
 */
export interface CuttingProxy {
  /** `url` with its host and port pointed at the proxy. */
  readonly url: string
  arm(): void
  close(): Promise<void>
}

const COMMAND_COMPLETE = 'C'.charCodeAt(0)

export async function startCuttingProxy(url: string): Promise<CuttingProxy> {
  const target = new URL(url)
  let armed = false
  const sockets = new Set<Socket>()
  const server: Server = createServer((client) => {
    const upstream = createConnection({ host: target.hostname, port: Number(target.port || 5432) })
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
      socket.on('error', () => undefined)
    }
    const cut = () => {
      client.destroy()
      upstream.destroy()
    }
    client.on('close', cut)
    upstream.on('close', cut)
    client.pipe(upstream)
    let pending = Buffer.alloc(0)
    upstream.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk])
      // every server message is a type byte and a 4-byte length that counts itself
      while (pending.length >= 5) {
        const size = 1 + pending.readUInt32BE(1)
        if (pending.length < size) break
        const message = pending.subarray(0, size)
        pending = pending.subarray(size)
        if (armed && message[0] === COMMAND_COMPLETE) {
          armed = false
          client.end(message, cut)
          return
        }
        client.write(message)
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address() as { port: number }
  const proxied = new URL(url)
  proxied.hostname = '127.0.0.1'
  proxied.port = String(address.port)
  return {
    url: proxied.toString(),
    arm: () => {
      armed = true
    },
    close: async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}
