import net from 'node:net'

export interface RawResponse {
  readonly status: number
  readonly headers: Record<string, string>
  /** Everything after the blank line that ends the headers. */
  readonly body: string
}

/** Sends `request` as is over a fresh TCP connection and reads until the server closes it. */
export function rawRequest(port: number, request: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1')
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
