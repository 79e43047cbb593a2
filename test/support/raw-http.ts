import net from 'node:net'

export interface RawResponse {
  readonly status: number
  readonly headers: Record<string, string>
  /** Everything after the blank line that ends the headers. */
  readonly body: string
}

/** Sends `request` as is over a fresh TCP connection (from the loopback address `from`) and reads until it closes. */
export function rawRequest(port: number, request: string, from = '127.0.0.1'): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress: from })
    const chunks: Buffer[] = []
    socket.setTimeout(10_000, () => socket.destroy(new Error('raw request timed out')))
    socket.on('data', (c: Buffer) => chunks.push(c))
    socket.on('error', reject)
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      const end = text.indexOf('\r\n\r\n')
      const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n')
      const headers: Record<string, string> = {}
      for (const line of lines) {
        const i = line.indexOf(':')
        headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim()
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: text.slice(end + 4) })
    })
    socket.write(request)
  })
}

/** A request whose header line node's parser refuses (400). */
export const malformedRequest = (method: string, path: string): string =>
  `${method} ${path} HTTP/1.1\r\nHost: localhost\r\nBad Header Line\r\nConnection: close\r\n\r\n`

/** A request line over node's 16 KB header limit (431). */
export const oversizedRequest = (method: string, path: string): string =>
  `${method} ${path}${path.includes('?') ? '&' : '?'}codes=${'600519,'.repeat(2600)} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`

/** A kept-alive connection from the loopback address `from`: requests one at a time, each answer read by its length. */
export interface KeptAlive {
  readonly socket: net.Socket
  readonly closed: () => boolean
  /** `GET path`; rejects when the connection closes before the whole answer came. */
  get(path: string): Promise<RawResponse>
}

export function keepAlive(port: number, from: string): Promise<KeptAlive> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress: from })
    let buffer = Buffer.alloc(0)
    let closed = false
    let waiting: { resolve(r: RawResponse): void; reject(e: Error): void } | undefined
    const settle = (): void => {
      const end = buffer.indexOf('\r\n\r\n')
      if (!waiting || end < 0) return
      const [statusLine = '', ...lines] = buffer.subarray(0, end).toString('latin1').split('\r\n')
      const headers: Record<string, string> = {}
      for (const line of lines) {
        const i = line.indexOf(':')
        headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim()
      }
      const length = Number(headers['content-length'] ?? 0)
      if (buffer.length < end + 4 + length) return
      const body = buffer.subarray(end + 4, end + 4 + length).toString('utf8')
      buffer = buffer.subarray(end + 4 + length)
      const done = waiting
      waiting = undefined
      done.resolve({ status: Number(statusLine.split(' ')[1]), headers, body })
    }
    socket.on('data', (c: Buffer) => {
      buffer = Buffer.concat([buffer, c])
      settle()
    })
    socket.on('error', () => undefined)
    socket.on('close', () => {
      closed = true
      waiting?.reject(new Error(`connection from ${from} closed before the answer`))
    })
    socket.once('error', reject)
    socket.once('connect', () =>
      resolve({
        socket,
        closed: () => closed,
        get: (path) =>
          new Promise((res, rej) => {
            if (closed) return rej(new Error(`connection from ${from} is closed`))
            waiting = { resolve: res, reject: rej }
            socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`)
          }),
      }),
    )
  })
}
